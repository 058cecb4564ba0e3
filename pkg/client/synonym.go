package client

import (
	"context"
	"net/http"
	"net/url"
)

// SynonymsPath is the collection of synonym rules, below Config.SearchBaseURL.
const SynonymsPath = "/api/v1/admin/synonyms"

// Synonym is a synonym rule search applies at query time: multi-way when
// Root is empty (every term stands for every other), one-way otherwise (a
// query matching Root also looks for the Synonyms). The same struct is a
// request and a response body; the members the service sets are left out
// of requests when empty.
type Synonym struct {
	ID         string   `json:"id,omitempty"`
	Root       string   `json:"root,omitempty"`
	Synonyms   []string `json:"synonyms"`
	Autor      string   `json:"autor,omitempty"`
	CreatedAt  int64    `json:"created_at,omitempty"`
	LastUpdate int64    `json:"last_update,omitempty"`
}

// synonymPath is the path of the rule id, escaped into one segment.
func synonymPath(id string) (string, error) {
	if id == "" {
		return "", errEmptyID
	}
	return SynonymsPath + "/" + url.PathEscape(id), nil
}

// CreateSynonym creates a synonym rule.
func (c *Client) CreateSynonym(ctx context.Context, s *Synonym, opts ...Option) (*Synonym, error) {
	return call[Synonym](ctx, c, "create synonym", http.MethodPost, AreaSearch, SynonymsPath, s, opts)
}

// GetSynonym reads the synonym rule id.
func (c *Client) GetSynonym(ctx context.Context, id string, opts ...Option) (*Synonym, error) {
	p, err := synonymPath(id)
	if err != nil {
		return nil, err
	}
	return call[Synonym](ctx, c, "get synonym", http.MethodGet, AreaSearch, p, nil, opts)
}

// ListSynonyms lists synonym rules, newest first; filter: text.
func (c *Client) ListSynonyms(ctx context.Context, lo ListOptions, opts ...Option) (*Page[Synonym], error) {
	return list[Synonym](ctx, c, "list synonyms", AreaSearch, SynonymsPath, lo, opts)
}

// UpdateSynonym replaces the synonym rule id with s.
func (c *Client) UpdateSynonym(ctx context.Context, id string, s *Synonym, opts ...Option) (*Synonym, error) {
	p, err := synonymPath(id)
	if err != nil {
		return nil, err
	}
	return call[Synonym](ctx, c, "update synonym", http.MethodPut, AreaSearch, p, s, opts)
}

// DeleteSynonym deletes the synonym rule id.
func (c *Client) DeleteSynonym(ctx context.Context, id string, opts ...Option) error {
	p, err := synonymPath(id)
	if err != nil {
		return err
	}
	return remove(ctx, c, "delete synonym", AreaSearch, p, opts)
}
