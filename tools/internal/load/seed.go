package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// seedRows is how many rows of each resource the run creates before the
// load, so that updates and references have rows to pick from.
const seedRows = 3

// seedResources lists the resources the mix needs rows of before it starts:
// those it updates, and Escolaridade when it creates Empregos.
func (g *generator) seedResources() []*Resource {
	rs := g.mix.updates()
	if g.mix.has("create-emprego") && !slices.Contains(rs, Escolaridade) {
		rs = append(rs, Escolaridade)
	}
	return rs
}

// seed creates seedRows rows of each resource the mix needs, one request at
// a time, and returns how many it created. The rows are recorded like any
// other 201 of the run.
func (g *generator) seed(ctx context.Context, hc *http.Client) (int, error) {
	created := 0
	for _, r := range g.seedResources() {
		op := createOf(r)
		for range seedRows {
			if err := g.seedOne(ctx, hc, op); err != nil {
				return created, fmt.Errorf("seed %s: %w", r.Name, err)
			}
			created++
		}
	}
	return created, nil
}

// seedOne sends one create of op and records the row.
func (g *generator) seedOne(ctx context.Context, hc *http.Client, op *Operation) error {
	g.mu.Lock()
	req, err := g.build(op)
	g.mu.Unlock()
	if err != nil {
		return err
	}
	var t vegeta.Target
	if err := g.fill(&t, req); err != nil {
		return err
	}
	hreq, err := t.Request()
	if err != nil {
		return fmt.Errorf("build the request: %w", err)
	}
	resp, err := hc.Do(hreq.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("POST %s: %w", req.url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("POST %s: read the answer: %w", req.url, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s: %s: %s", req.url, resp.Status, excerpt(body))
	}
	c, ok := g.rec.sawCreated(op.Resource, body)
	if !ok {
		return fmt.Errorf("POST %s: the 201 does not describe the row sent", req.url)
	}
	g.pools[op.Resource].add(c.ID)
	return nil
}

// createOf returns the create operation of r.
func createOf(r *Resource) *Operation {
	for _, op := range Operations {
		if op.Kind == Create && op.Resource == r {
			return op
		}
	}
	panic("no create operation for " + r.Name)
}
