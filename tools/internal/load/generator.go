package load

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/oauth2"
)

// generator turns the mix into requests: vegeta's workers call target
// concurrently, and the result loop calls observe.
type generator struct {
	marker string
	bases  map[Area]string
	tokens map[Area]oauth2.TokenSource
	pools  map[*Resource]*idPool
	rec    *record
	mix    Mix

	mu     sync.Mutex // guards picker, rng and n
	picker *picker
	rng    *rand.Rand
	n      uint64
}

func newGenerator(marker string, mix Mix, bases map[Area]string, tokens map[Area]oauth2.TokenSource) *generator {
	g := &generator{
		marker: marker, mix: mix, bases: bases, tokens: tokens,
		pools: map[*Resource]*idPool{}, rec: newRecord(),
		picker: newPicker(mix), rng: rand.New(rand.NewPCG(1, 2)),
	}
	for _, r := range Resources {
		g.pools[r] = &idPool{}
	}
	return g
}

// request is one request to send, before its token is added.
type request struct {
	op     *Operation
	method string
	url    string
	body   []byte
	key    string // Idempotency-Key of a create
}

// target is the vegeta.Targeter of the run: the next request of the mix.
func (g *generator) target(t *vegeta.Target) error {
	g.mu.Lock()
	req, err := g.build(g.picker.next())
	g.mu.Unlock()
	if err != nil {
		return err
	}
	return g.fill(t, req)
}

// build makes the n-th request for op; the caller holds g.mu.
func (g *generator) build(op *Operation) (request, error) {
	g.n++
	n := g.n
	base := g.bases[op.area()] + op.route()
	req := request{op: op, method: op.Method(), url: base}
	switch op.Kind {
	case Read:
		if op.query != nil {
			req.url += "?" + op.query(g, n)
		}
		return req, nil
	case Update:
		id, ok := g.pools[op.Resource].random(g.rng)
		if !ok {
			return req, fmt.Errorf("%s: no %s of this run to update", op.Name, op.Resource.Name)
		}
		req.url += "/" + url.PathEscape(id)
		name := markedName(op.Resource, g.marker, n)
		g.rec.sentUpdate(op.Resource, id, name)
		return g.withBody(req, op.Resource.body(g, name, n))
	default:
		name := markedName(op.Resource, g.marker, n)
		g.rec.sentCreate(op.Resource, name)
		req.key = g.marker + "-" + strconv.FormatUint(n, 10)
		return g.withBody(req, op.Resource.body(g, name, n))
	}
}

func (g *generator) withBody(req request, body map[string]any) (request, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return req, fmt.Errorf("%s: encode the body: %w", req.op.Name, err)
	}
	req.body = b
	return req, nil
}

// fill writes req into t with a bearer token of its area's client.
func (g *generator) fill(t *vegeta.Target, req request) error {
	tok, err := g.tokens[req.op.area()].Token()
	if err != nil {
		return fmt.Errorf("%s: %w", req.op.Name, err)
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+tok.AccessToken)
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "loadgen")
	if req.body != nil {
		h.Set("Content-Type", "application/json")
	}
	if req.key != "" {
		h.Set("Idempotency-Key", req.key)
	}
	*t = vegeta.Target{Method: req.method, URL: req.url, Body: req.body, Header: h}
	return nil
}

// observe returns the operation res belongs to (nil for none of the mix)
// and records the row a create's 201 describes.
func (g *generator) observe(res *vegeta.Result) *Operation {
	op := g.classify(res.Method, res.URL)
	if op != nil && op.Kind == Create && res.Code == http.StatusCreated {
		if c, ok := g.rec.sawCreated(op.Resource, res.Body); ok {
			g.pools[op.Resource].add(c.ID)
		}
	}
	return op
}

// classify finds the operation of the mix that sends method to rawURL.
func (g *generator) classify(method, rawURL string) *Operation {
	path, _, _ := strings.Cut(rawURL, "?")
	for _, w := range g.mix {
		op := w.Op
		if op.Method() != method {
			continue
		}
		rest, ok := strings.CutPrefix(path, g.bases[op.area()]+op.route())
		switch {
		case !ok:
		case op.Kind == Update && strings.HasPrefix(rest, "/") && len(rest) > 1 && !strings.Contains(rest[1:], "/"):
			return op
		case op.Kind != Update && rest == "":
			return op
		}
	}
	return nil
}
