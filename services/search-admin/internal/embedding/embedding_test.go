package embedding_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestHashIsDeterministicNormalizedAndLexical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	embed := func(text string) []float32 {
		v, err := embedding.Hash{}.Embed(ctx, text, 384)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, again := embed("Emissão de certidão de IPTU"), embed("Emissão de certidão de IPTU")
	if cosine(a, again) < 0.999999 {
		t.Error("the same text embeds differently twice")
	}
	if math.Abs(cosine(a, a)-1) > 1e-5 {
		t.Errorf("vector is not unit length: %f", cosine(a, a))
	}
	if got := cosine(a, embed("EMISSAO DE CERTIDAO DE IPTU")); got < 0.999 {
		t.Errorf("case and accents change the vector: cosine %f", got)
	}
	near, far := cosine(a, embed("certidão do IPTU")), cosine(a, embed("poda de árvores na calçada"))
	if near <= far {
		t.Errorf("a related text (%f) is not closer than an unrelated one (%f)", near, far)
	}
	if v := embed(""); len(v) != 384 || cosine(v, v) != 0 {
		t.Errorf("empty text gives %d dimensions, norm %f; want a zero vector", len(v), cosine(v, v))
	}
	if _, err := (embedding.Hash{}).Embed(ctx, "x", 0); err == nil {
		t.Error("dimension 0 is accepted")
	}
}

// fakeAPI serves an embeddings API whose first failures answers are status fail.
type fakeAPI struct {
	failures atomic.Int32
	fail     int
	calls    atomic.Int32
	handle   func(t *testing.T, r *http.Request) any
}

func (f *fakeAPI) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		if f.failures.Add(-1) >= 0 {
			http.Error(w, `{"error":"down"}`, f.fail)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(f.handle(t, r))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func decodeBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("request body is not JSON: %v", err)
	}
	return body
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2
	}
	return v
}

func openAIServer(t *testing.T) *fakeAPI {
	return &fakeAPI{handle: func(t *testing.T, r *http.Request) any {
		body := decodeBody(t, r)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("request %s %s with Authorization %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		if body["model"] != "text-embedding-3-small" || body["dimensions"] != 8.0 || body["encoding_format"] != "float" {
			t.Errorf("request body %v", body)
		}
		if in, _ := body["input"].([]any); len(in) != 1 || in[0] != "certidão" {
			t.Errorf("input = %v", body["input"])
		}
		return map[string]any{"object": "list", "model": "text-embedding-3-small",
			"data":  []any{map[string]any{"object": "embedding", "index": 0, "embedding": ones(8)}},
			"usage": map[string]any{"prompt_tokens": 2, "total_tokens": 2}}
	}}
}

func geminiServer(t *testing.T) *fakeAPI {
	return &fakeAPI{handle: func(t *testing.T, r *http.Request) any {
		body := decodeBody(t, r)
		if r.URL.Path != "/v1beta/models/gemini-embedding-001:embedContent" || r.Header.Get("x-goog-api-key") != "g-key" {
			t.Errorf("request %s with key %q", r.URL.Path, r.Header.Get("x-goog-api-key"))
		}
		parts := body["content"].(map[string]any)["parts"].([]any)
		if body["model"] != "models/gemini-embedding-001" || body["outputDimensionality"] != 8.0 || parts[0].(map[string]any)["text"] != "certidão" {
			t.Errorf("request body %v", body)
		}
		return map[string]any{"embedding": map[string]any{"values": ones(8)}}
	}}
}

func TestNetworkProvidersSpeakTheirAPIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider string
		key      string
		api      func(*testing.T) *fakeAPI
		model    string
	}{
		{"openai calls /v1/embeddings with dimensions", "openai", "sk-test", openAIServer, "openai/text-embedding-3-small"},
		{"gemini calls embedContent with outputDimensionality", "gemini", "g-key", geminiServer, "gemini/gemini-embedding-001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := tt.api(t)
			api.failures.Store(1)
			api.fail = http.StatusServiceUnavailable
			srv := api.start(t)
			p, err := embedding.New(embedding.Config{Provider: tt.provider, URL: srv.URL, APIKey: tt.key, Timeout: time.Second, MaxRetries: 2, RetryDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			v, err := p.Embed(context.Background(), "certidão", 8)
			if err != nil {
				t.Fatalf("embed after one 503: %v", err)
			}
			if len(v) != 8 || math.Abs(cosine(v, v)-1) > 1e-5 || p.Model() != tt.model {
				t.Errorf("got %d dimensions, norm %f, model %q", len(v), cosine(v, v), p.Model())
			}
			if api.calls.Load() != 2 {
				t.Errorf("calls = %d, want 2 (one retry)", api.calls.Load())
			}
		})
	}
}

func TestRetriesAreBoundedAndSelective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		wantCalls int32
	}{
		{"a 500 is retried up to the limit", http.StatusInternalServerError, 3},
		{"a 429 is retried up to the limit", http.StatusTooManyRequests, 3},
		{"a 401 is not retried", http.StatusUnauthorized, 1},
		{"a 400 is not retried", http.StatusBadRequest, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := openAIServer(t)
			api.failures.Store(100)
			api.fail = tt.status
			srv := api.start(t)
			p, _ := embedding.New(embedding.Config{Provider: "openai", URL: srv.URL, APIKey: "sk-test", Timeout: time.Second, MaxRetries: 2, RetryDelay: time.Millisecond})
			_, err := p.Embed(context.Background(), "certidão", 8)
			var se *embedding.StatusError
			if !errors.As(err, &se) || se.Status != tt.status {
				t.Errorf("err = %v, want status %d", err, tt.status)
			}
			if got := api.calls.Load(); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestAHungProviderTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	p, _ := embedding.New(embedding.Config{Provider: "openai", URL: srv.URL, Timeout: 50 * time.Millisecond, MaxRetries: 1, RetryDelay: time.Millisecond})
	if _, err := p.Embed(context.Background(), "x", 8); err == nil {
		t.Fatal("a provider that never answers did not fail")
	}
}

func TestProviderAnswersAreChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer any
	}{
		{"a vector of the wrong dimension", map[string]any{"data": []any{map[string]any{"index": 0, "embedding": ones(4)}}}},
		{"no vector at all", map[string]any{"data": []any{}}},
		{"a body that is not the API's", map[string]any{"unexpected": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is an error", func(t *testing.T) {
			t.Parallel()
			api := &fakeAPI{handle: func(*testing.T, *http.Request) any { return tt.answer }}
			srv := api.start(t)
			p, _ := embedding.New(embedding.Config{Provider: "openai", URL: srv.URL, Timeout: time.Second, MaxRetries: 0})
			if v, err := p.Embed(context.Background(), "x", 8); err == nil {
				t.Errorf("accepted %v", v)
			}
		})
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  embedding.Config
	}{
		{"an unknown provider", embedding.Config{Provider: "bert", Timeout: time.Second}},
		{"gemini without a key", embedding.Config{Provider: "gemini", Timeout: time.Second}},
		{"a zero timeout", embedding.Config{Provider: "openai"}},
		// Each started the program ready, every embedding then pending.
		{"a URL that is no URL", embedding.Config{Provider: "openai", URL: "notaurl", Timeout: time.Second}},
		{"a URL of another scheme", embedding.Config{Provider: "openai", URL: "ftp://x", Timeout: time.Second}},
		{"a URL with a space in its host", embedding.Config{Provider: "gemini", APIKey: "k", URL: "http://a b", Timeout: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			t.Parallel()
			if _, err := embedding.New(tt.cfg); err == nil {
				t.Error("New accepted it")
			}
		})
	}
}

func TestOpenAIAcceptsEveryFormOfBaseURL(t *testing.T) {
	t.Parallel()
	var path atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.Path)
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"index": 0, "embedding": ones(4)}}})
	}))
	t.Cleanup(srv.Close)
	tests := []struct{ base, want string }{
		{srv.URL, "/v1/embeddings"},
		{srv.URL + "/", "/v1/embeddings"},
		{srv.URL + "/v1", "/v1/embeddings"},
		{srv.URL + "/openai/v1/embeddings", "/openai/v1/embeddings"},
	}
	for _, tt := range tests {
		p := &embedding.OpenAI{BaseURL: tt.base, ModelName: "m", Client: srv.Client()}
		if _, err := p.Embed(context.Background(), "x", 4); err != nil {
			t.Fatalf("base %s: %v", tt.base, err)
		}
		if got := path.Load(); got != tt.want {
			t.Errorf("base %s posted to %v, want %s", tt.base, got, tt.want)
		}
	}
}

func TestTheLexicalProviderWeighsLeastInHybridSearch(t *testing.T) {
	t.Parallel()
	hash := embedding.SemanticWeight("hash")
	for _, p := range []string{"openai", "gemini"} {
		if w := embedding.SemanticWeight(p); w <= hash || w > 1 {
			t.Errorf("%s weighs %.2f, hash %.2f: a language model should weigh more, at most 1", p, w, hash)
		}
	}
	if hash <= 0 || hash > 0.3 {
		t.Errorf("hash weighs %.2f; the labeled set kept hybrid at keyword quality only up to 0.3", hash)
	}
}
