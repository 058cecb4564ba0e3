package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// ListOptions selects a page of a list and filters it.
type ListOptions struct {
	// Page counts from 1; 0 leaves the server's default.
	Page int
	// PerPage is the page size; 0 leaves the server's default, and the
	// server clamps values above its maximum.
	PerPage int
	// Filter holds the list's filters, such as status or empresa_id.
	Filter url.Values
}

// query returns the query parameters of o.
func (o ListOptions) query() url.Values {
	q := url.Values{}
	for k, vs := range o.Filter {
		q[k] = append([]string(nil), vs...)
	}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(o.PerPage))
	}
	return q
}

// Page is one page of a list: {"data": [...], "meta": {...}}.
type Page[T any] struct {
	Data []T      `json:"data"`
	Meta ListMeta `json:"meta"`
}

// ListMeta is the position of a page in its list.
type ListMeta struct {
	Page    int   `json:"page"`
	PerPage int   `json:"per_page"`
	Total   int64 `json:"total"`
}

// Ptr returns a pointer to v, for the optional members of request bodies.
func Ptr[T any](v T) *T { return &v }

// call sends one request of a typed method and decodes its answer into a
// new Out; op names the operation in errors.
func call[Out any](ctx context.Context, c *Client, op, method, area, path string, in any, opts []Option) (*Out, error) {
	out := new(Out)
	if _, err := c.Do(ctx, method, area, path, in, out, opts...); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// list fetches one page of the collection at path.
func list[T any](ctx context.Context, c *Client, op, area, path string, lo ListOptions, opts []Option) (*Page[T], error) {
	opts = append([]Option{WithQuery(lo.query())}, opts...)
	return call[Page[T]](ctx, c, op, http.MethodGet, area, path, nil, opts)
}

// remove deletes the resource at path.
func remove(ctx context.Context, c *Client, op, area, path string, opts []Option) error {
	if _, err := c.Do(ctx, http.MethodDelete, area, path, nil, nil, opts...); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// intPath is the path of the resource id below collection.
func intPath(collection string, id int64) string {
	return collection + "/" + strconv.FormatInt(id, 10)
}
