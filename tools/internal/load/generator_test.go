package load

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// testBases are the base URLs of the generators under test; nothing is sent.
var testBases = map[Area]string{SearchArea: "http://127.0.0.1:1/search", JobsArea: "http://127.0.0.1:1/go/v1"}

// newTestGenerator returns a generator of every operation with real tokens
// of the development identity provider.
func newTestGenerator(t *testing.T) *generator {
	t.Helper()
	idp := devidptest.Start(t)
	cfg := Config{AuthURL: idp.URL(), Realm: "municipal", Mix: MustParseMix(DefaultMix),
		SearchClient: Credentials{"catalog-admin", "catalog-admin-secret"}, JobsClient: Credentials{"jobs-admin", "jobs-admin-secret"}}
	tokens, err := tokenSources(context.Background(), cfg, idp.HTTPClient())
	if err != nil {
		t.Fatal(err)
	}
	return newGenerator("lg-test", cfg.Mix, testBases, tokens)
}

// buildTarget builds the next request of op as vegeta would send it.
func buildTarget(t *testing.T, g *generator, op *Operation) vegeta.Target {
	t.Helper()
	g.mu.Lock()
	req, err := g.build(op)
	g.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	var tgt vegeta.Target
	if err := g.fill(&tgt, req); err != nil {
		t.Fatal(err)
	}
	return tgt
}

func TestGeneratorBuildsEachOperation(t *testing.T) {
	t.Parallel()
	g := newTestGenerator(t)
	g.pools[Servico].add("0190f3c2-7b1e-7c3a-9d4e-2f6a8b0c1d2e")
	g.pools[Escolaridade].add("42")
	for _, op := range Operations {
		t.Run(op.Name+" is sent to its route and classified back to it", func(t *testing.T) {
			tgt := buildTarget(t, g, op)
			if tgt.Method != op.Method() || !strings.HasPrefix(tgt.URL, testBases[op.area()]+op.route()) {
				t.Fatalf("%s %s, want %s under %s", tgt.Method, tgt.URL, op.Method(), op.route())
			}
			if !strings.HasPrefix(tgt.Header.Get("Authorization"), "Bearer ey") {
				t.Fatal("no bearer JWT")
			}
			if got := g.classify(tgt.Method, tgt.URL); got != op {
				t.Fatalf("classified as %v", got)
			}
		})
	}
	t.Run("creates carry a marked name and a fresh idempotency key", func(t *testing.T) {
		keys := map[string]bool{}
		for _, r := range Resources {
			tgt := buildTarget(t, g, createOf(r))
			if name := member(t, tgt.Body, r.NameField); !strings.Contains(name, "lg-test-") {
				t.Fatalf("%s named %q, without the marker", r.Name, name)
			}
			key := tgt.Header.Get("Idempotency-Key")
			if key == "" || keys[key] {
				t.Fatalf("idempotency key %q is empty or reused", key)
			}
			keys[key] = true
		}
	})
	t.Run("updates rename a row of the run and remember the name", func(t *testing.T) {
		tgt := buildTarget(t, g, mustOperation(t, "update-escolaridade"))
		if !strings.HasSuffix(tgt.URL, "/api/v1/escolaridades/42") {
			t.Fatalf("PUT %s", tgt.URL)
		}
		name := member(t, tgt.Body, "nivel")
		if sent := g.rec.updates[UpdateKey("escolaridade", "42")]; len(sent) == 0 || sent[len(sent)-1] != name {
			t.Fatalf("update names %q do not end with %q", sent, name)
		}
	})
	t.Run("empregos refer to an escolaridade of the run", func(t *testing.T) {
		tgt := buildTarget(t, g, createOf(Emprego))
		var body struct {
			EscolaridadeID int64 `json:"escolaridade_id"`
		}
		if err := json.Unmarshal(tgt.Body, &body); err != nil || body.EscolaridadeID != 42 {
			t.Fatalf("escolaridade_id %d (%v), want 42", body.EscolaridadeID, err)
		}
	})
}

func TestGeneratorRefusesAnUpdateWithoutRows(t *testing.T) {
	t.Parallel()
	g := newTestGenerator(t)
	if _, err := g.build(mustOperation(t, "update-servico")); err == nil || !strings.Contains(err.Error(), "no servico") {
		t.Fatalf("error %v, want one saying there is no servico", err)
	}
}

func TestClassifyIgnoresOtherRoutes(t *testing.T) {
	t.Parallel()
	g := newGenerator("lg-test", MustParseMix(DefaultMix), testBases, nil)
	for _, tt := range []struct{ name, method, url string }{
		{"a deeper path under an update route", http.MethodPut, testBases[JobsArea] + "/api/v1/escolaridades/1/extra"},
		{"an update route without id", http.MethodPut, testBases[JobsArea] + "/api/v1/escolaridades/"},
		{"a route with a longer last segment", http.MethodGet, testBases[SearchArea] + "/api/v1/searchx"},
		{"a method the route is not sent with", http.MethodDelete, testBases[SearchArea] + "/api/v1/admin/services"},
		{"a route of the other area", http.MethodPost, testBases[SearchArea] + "/api/v1/empregos"},
	} {
		t.Run(tt.name+" is no operation", func(t *testing.T) {
			t.Parallel()
			if op := g.classify(tt.method, tt.url); op != nil {
				t.Fatalf("classified as %s", op.Name)
			}
		})
	}
}

func TestObserveRecordsOnlyCreatesTheRunSent(t *testing.T) {
	t.Parallel()
	g := newTestGenerator(t)
	tgt := buildTarget(t, g, createOf(Categoria))
	name := member(t, tgt.Body, "nome")
	answer := func(code uint16, body string) *vegeta.Result {
		return &vegeta.Result{Method: tgt.Method, URL: tgt.URL, Code: code, Body: []byte(body)}
	}
	tests := []struct {
		name      string
		res       *vegeta.Result
		created   int
		unmatched int
	}{
		{"a 201 naming the create sent is recorded", answer(201, `{"id": 7, "nome": "`+name+`"}`), 1, 0},
		{"a 201 naming something else is unmatched", answer(201, `{"id": 8, "nome": "Tecnologia"}`), 1, 1},
		{"a 201 that is not JSON is unmatched", answer(201, `<html>`), 1, 2},
		{"a 201 with a fractional id is unmatched", answer(201, `{"id": 1.5, "nome": "`+name+`"}`), 1, 3},
		{"a 422 is not a row", answer(422, `{"title": "invalid"}`), 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if op := g.observe(tt.res); op == nil || op.Name != "create-categoria" {
				t.Fatalf("observed as %v", op)
			}
			if len(g.rec.created) != tt.created || len(g.rec.unmatched) != tt.unmatched {
				t.Fatalf("%d created, %d unmatched; want %d and %d", len(g.rec.created), len(g.rec.unmatched), tt.created, tt.unmatched)
			}
		})
	}
	if id, ok := g.pools[Categoria].random(g.rng); !ok || id != "7" {
		t.Fatalf("pool holds %q, want the created id 7", id)
	}
}

func TestParseCreatedReadsStringAndIntegerIDs(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, id, err string }{
		{"a UUID id", `{"id": "0190f3c2-7b1e", "nome_servico": "IPTU"}`, "0190f3c2-7b1e", ""},
		{"an integer id", `{"id": 12345678901, "nome_servico": "IPTU"}`, "12345678901", ""},
		{"no id", `{"nome_servico": "IPTU"}`, "", "neither"},
		{"a name that is not a string", `{"id": 1, "nome_servico": 3}`, "", "no string nome_servico"},
		{"an array", `[1]`, "", "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseCreated(Servico, []byte(tt.body))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || c.ID != tt.id || c.Name != "IPTU" {
				t.Fatalf("got %+v, %v", c, err)
			}
		})
	}
}

// member returns the string member field of a JSON body.
func member(t *testing.T, body []byte, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	s, _ := m[field].(string)
	return s
}

func mustOperation(t *testing.T, name string) *Operation {
	t.Helper()
	op, err := operation(name)
	if err != nil {
		t.Fatal(err)
	}
	return op
}
