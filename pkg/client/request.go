package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// request is one logical call: everything needed to send it again.
type request struct {
	method string
	path   string // as the caller gave it, for messages
	url    string
	body   []byte
	header http.Header
	query  url.Values
}

// retryable reports whether repeating r cannot apply it twice.
func (r *request) retryable() bool {
	return idempotentMethods[r.method] || r.header.Get(IdempotencyKeyHeader) != ""
}

// newRequest validates the call and encodes its body once.
func (c *Client) newRequest(method, area, path string, in any, opts []Option) (*request, error) {
	base, ok := c.bases[area]
	if !ok {
		return nil, fmt.Errorf("client: unknown area %q (use %q or %q)", area, AreaSearch, AreaJobs)
	}
	if base == "" {
		return nil, fmt.Errorf("client: no base URL is configured for the %s area", area)
	}
	if method == "" || strings.ContainsAny(method, " \t\r\n") {
		return nil, fmt.Errorf("client: invalid method %q", method)
	}
	r := &request{method: strings.ToUpper(method), path: path, header: http.Header{}, query: url.Values{}}
	rawPath, rawQuery, _ := strings.Cut(path, "?")
	if err := r.addQuery(rawQuery); err != nil {
		return nil, err
	}
	for _, opt := range opts {
		opt(r)
	}
	body, err := encodeBody(in)
	if err != nil {
		return nil, fmt.Errorf("%s %s: encode the body: %w", r.method, path, err)
	}
	r.body = body
	if r.method == http.MethodPost && !c.cfg.DisableIdempotencyKeys && r.header.Get(IdempotencyKeyHeader) == "" {
		r.header.Set(IdempotencyKeyHeader, uuid.NewString())
	}
	if err := r.setURL(base, rawPath); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *request) addQuery(raw string) error {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return fmt.Errorf("client: query of %q: %w", r.path, err)
	}
	for k, vs := range q {
		r.query[k] = append(r.query[k], vs...)
	}
	return nil
}

// setURL joins base and path; path must be absolute and free of dot
// segments, so that it cannot climb out of the area's base URL.
func (r *request) setURL(base, path string) error {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "#\\") {
		return fmt.Errorf("client: path %q must start with / and hold no # or \\", r.path)
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("client: path %q must not hold . or .. segments", r.path)
		}
	}
	u, err := url.Parse(strings.TrimSuffix(base, "/") + path)
	if err != nil {
		return fmt.Errorf("client: path %q: %w", r.path, err)
	}
	u.RawQuery = r.query.Encode()
	r.url = u.String()
	return nil
}

// encodeBody returns the JSON of in; nil means no body.
func encodeBody(in any) ([]byte, error) {
	switch v := in.(type) {
	case nil:
		return nil, nil
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	}
	return json.Marshal(in)
}

// decodeBody stores a successful answer's body in out.
func decodeBody(body []byte, out any) error {
	switch v := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*v = body
		return nil
	case *json.RawMessage:
		*v = body
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("the answer has no body")
	}
	return json.Unmarshal(body, out)
}
