package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
)

// Created is one row the run saw created (a 201): the resource, the id
// the service gave it and the marked name the run sent.
type Created struct {
	Resource string `json:"resource"`
	ID       string `json:"id"`
	Name     string `json:"name"`
}

// record keeps what the run sent and the rows it saw created; the
// generator writes to it from vegeta's workers and the result loop.
type record struct {
	mu        sync.Mutex
	sent      map[string]*Resource // marked name of each create sent
	created   []Created
	updates   map[string][]string // UpdateKey → names sent by PUT
	unmatched []string            // why a 201 could not be matched
}

func newRecord() *record {
	return &record{sent: map[string]*Resource{}, updates: map[string][]string{}}
}

// UpdateKey is the key of Report.Updates for the row id of resource.
func UpdateKey(resource, id string) string { return resource + "/" + id }

// sentCreate notes a create of r named name, about to be sent.
func (rec *record) sentCreate(r *Resource, name string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.sent[name] = r
}

// sentUpdate notes a PUT renaming row id of r to name, about to be sent.
func (rec *record) sentUpdate(r *Resource, id, name string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	key := UpdateKey(r.Name, id)
	rec.updates[key] = append(rec.updates[key], name)
}

// sawCreated records the row a 201 of a create of r describes, when its
// body names a create the run sent; otherwise it keeps why not.
func (rec *record) sawCreated(r *Resource, body []byte) (Created, bool) {
	c, err := parseCreated(r, body)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err == nil && rec.sent[c.Name] != r {
		err = fmt.Errorf("a 201 of %s names %q, which this run did not send", r.Name, c.Name)
	}
	if err != nil {
		rec.unmatched = append(rec.unmatched, err.Error())
		return Created{}, false
	}
	rec.created = append(rec.created, c)
	return c, true
}

// parseCreated reads the id and the name member of a created resource.
func parseCreated(r *Resource, body []byte) (Created, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return Created{}, fmt.Errorf("a 201 of %s is not a JSON object: %w", r.Name, err)
	}
	id, err := idOf(members["id"])
	if err != nil {
		return Created{}, fmt.Errorf("a 201 of %s: %w", r.Name, err)
	}
	var name string
	if err := json.Unmarshal(members[r.NameField], &name); err != nil {
		return Created{}, fmt.Errorf("a 201 of %s has no string %s: %w", r.Name, r.NameField, err)
	}
	return Created{Resource: r.Name, ID: id, Name: name}, nil
}

// idOf reads an id that is a JSON string (a UUID) or an integer.
func idOf(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil && s != "" {
		return s, nil
	}
	raw = bytes.TrimSpace(raw)
	if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
		return "", fmt.Errorf("id %s is neither a string nor an integer", raw)
	}
	return string(raw), nil
}

// idPool holds the ids of the rows of one resource the run created, for
// updates and references to pick from.
type idPool struct {
	mu  sync.Mutex
	ids []string
}

func (p *idPool) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

// random returns an id chosen with rng, or false when the pool is empty.
func (p *idPool) random(rng *rand.Rand) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return "", false
	}
	return p.ids[rng.IntN(len(p.ids))], true
}
