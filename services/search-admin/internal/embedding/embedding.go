// Package embedding turns text into vectors for semantic search. Providers
// share one interface: Hash (deterministic feature hashing, offline), OpenAI
// (any OpenAI-compatible /v1/embeddings) and Gemini (embedContent). Network
// providers are wrapped with a per-attempt timeout and bounded retries.
package embedding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
)

// Provider turns text into an L2-normalized vector of dims dimensions.
type Provider interface {
	Embed(ctx context.Context, text string, dims int) ([]float32, error)
	// Model names the provider and model, e.g. "openai/text-embedding-3-small".
	Model() string
}

// Config selects and tunes a provider.
type Config struct {
	Provider   string        `env:"EMBEDDING_PROVIDER, default=hash"`
	URL        string        `env:"EMBEDDING_URL"`
	APIKey     string        `env:"EMBEDDING_API_KEY"`
	Model      string        `env:"EMBEDDING_MODEL"`
	Timeout    time.Duration `env:"EMBEDDING_TIMEOUT, default=10s"`
	MaxRetries int           `env:"EMBEDDING_MAX_RETRIES, default=2"`
	RetryDelay time.Duration `env:"EMBEDDING_RETRY_DELAY, default=250ms"`
}

// Defaults of the network providers.
const (
	DefaultOpenAIURL   = "https://api.openai.com"
	DefaultOpenAIModel = "text-embedding-3-small"
	DefaultGeminiURL   = "https://generativelanguage.googleapis.com"
	DefaultGeminiModel = "gemini-embedding-001"
)

// New builds the provider cfg names, with retries around network providers.
func New(cfg Config) (Provider, error) {
	if cfg.Timeout <= 0 || cfg.MaxRetries < 0 || cfg.RetryDelay < 0 {
		return nil, errors.New("EMBEDDING_TIMEOUT must be positive, EMBEDDING_MAX_RETRIES and EMBEDDING_RETRY_DELAY not negative")
	}
	client := &http.Client{Timeout: cfg.Timeout}
	var p Provider
	// A URL that is none would start the program ready and leave every
	// embedding pending; the value is not echoed, it may hold a key.
	if cfg.Provider != "hash" && cfg.URL != "" && !program.IsHTTPURL(cfg.URL) {
		return nil, errors.New("EMBEDDING_URL must be an http(s) URL with a host")
	}
	switch cfg.Provider {
	case "hash":
		return Hash{}, nil
	case "openai":
		p = &OpenAI{BaseURL: or(cfg.URL, DefaultOpenAIURL), Key: cfg.APIKey, ModelName: or(cfg.Model, DefaultOpenAIModel), Client: client}
	case "gemini":
		if cfg.APIKey == "" {
			return nil, errors.New("EMBEDDING_PROVIDER=gemini needs EMBEDDING_API_KEY")
		}
		p = &Gemini{BaseURL: or(cfg.URL, DefaultGeminiURL), Key: cfg.APIKey, ModelName: or(cfg.Model, DefaultGeminiModel), Client: client}
	default:
		return nil, fmt.Errorf("EMBEDDING_PROVIDER %q is not one of hash, openai, gemini", cfg.Provider)
	}
	return WithRetry(p, cfg.Timeout, cfg.MaxRetries, cfg.RetryDelay), nil
}

// SemanticWeight is the share of the semantic score in hybrid search for
// a provider, unless SEARCH_SEMANTIC_WEIGHT sets it. hash is lexical (words
// and trigrams, no meaning): on the labeled relevance set it ranks below
// keyword search on every kind of query, so it only breaks near-ties. The
// network providers are language models; 0.5 weighs both channels alike
// until a catalog's own labeled queries measure better.
func SemanticWeight(provider string) float64 {
	if provider == "hash" {
		return HashSemanticWeight
	}
	return 0.5
}

// HashSemanticWeight is the hybrid weight of the hash provider.
const HashSemanticWeight = 0.1

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return v
}

// checkVector rejects an answer of the wrong dimension or with non-finite values.
func checkVector(v []float32, dims int) ([]float32, error) {
	if len(v) != dims {
		return nil, fmt.Errorf("provider returned %d dimensions, the schema needs %d", len(v), dims)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("provider returned a non-finite value")
		}
	}
	return normalize(v), nil
}
