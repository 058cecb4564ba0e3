package client

import (
	"context"
	"fmt"
	"net/http"

	"golang.org/x/oauth2"
)

// The areas of the API, each reached through its own base URL.
const (
	AreaSearch = "search" // search administration, Config.SearchBaseURL
	AreaJobs   = "jobs"   // jobs and courses, Config.JobsBaseURL
)

// Client calls both areas of the municipal services API. It is safe for
// concurrent use and shares one cached access token between goroutines.
type Client struct {
	cfg    Config
	bases  map[string]string
	tokens *tokenCache
}

// New builds a Client from cfg without contacting any server.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{
		cfg:    cfg,
		bases:  map[string]string{AreaSearch: cfg.SearchBaseURL, AreaJobs: cfg.JobsBaseURL},
		tokens: newTokenCache(cfg),
	}, nil
}

// Token returns the cached access token, fetching a new one from the
// identity provider when it is missing or about to expire.
func (c *Client) Token(ctx context.Context) (*oauth2.Token, error) {
	return c.tokens.token(ctx)
}

// Response describes a successful answer.
type Response struct {
	// StatusCode and Header are those of the final answer.
	StatusCode int
	Header     http.Header
	// RateLimit is what the answer said about the caller's rate limit.
	RateLimit RateLimit
	// RequestID is the X-Request-ID the server answered with.
	RequestID string
	// IdempotencyKey is the key the request carried, if any.
	IdempotencyKey string
	// Replayed reports that the service answered with the stored response
	// to an earlier request with the same Idempotency-Key.
	Replayed bool
	// Attempts is how many times the request was sent.
	Attempts int
}

// Do sends a request to path (which may carry a query) below the base URL of
// area, with in as its JSON body, and decodes a successful answer into out.
// in may be nil, []byte or json.RawMessage (sent as is) or any value to
// encode; out may be nil, *[]byte, *json.RawMessage or any value to decode
// into. Answers of 400 and above are returned as *Error.
func (c *Client) Do(ctx context.Context, method, area, path string, in, out any, opts ...Option) (*Response, error) {
	req, err := c.newRequest(method, area, path, in, opts)
	if err != nil {
		return nil, err
	}
	resp, body, err := c.send(ctx, req)
	if err != nil {
		return resp, err
	}
	if err := decodeBody(body, out); err != nil {
		return resp, fmt.Errorf("%s %s: decode the answer: %w", req.method, req.path, err)
	}
	return resp, nil
}
