package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// Paths of the search administration area, below Config.SearchBaseURL.
const (
	ServicesPath         = "/api/v1/admin/services"
	MigrationSchemasPath = "/api/v1/admin/migration/schemas"
	MigrationStatusPath  = "/api/v1/admin/migration/status"
)

// errEmptyID rejects a call that would address the collection instead of a member.
var errEmptyID = errors.New("client: the id is empty")

// servicoPath is the path of the Servico id, escaped so that it stays one segment.
func servicoPath(id string) (string, error) {
	if id == "" {
		return "", errEmptyID
	}
	return ServicesPath + "/" + url.PathEscape(id), nil
}

// SchemaVersions lists the search-schema versions available for migration
// and the current one (operation 1 of the API document).
func (c *Client) SchemaVersions(ctx context.Context, opts ...Option) (*SchemaReport, error) {
	return call[SchemaReport](ctx, c, "list schema versions", http.MethodGet, AreaSearch, MigrationSchemasPath, nil, opts)
}

// MigrationStatus reports the state of the search index migration.
func (c *Client) MigrationStatus(ctx context.Context, opts ...Option) (MigrationStatus, error) {
	st, err := call[MigrationStatus](ctx, c, "get migration status", http.MethodGet, AreaSearch, MigrationStatusPath, nil, opts)
	if err != nil {
		return nil, err
	}
	return *st, nil
}

// CreateServico creates a service catalog entry (operation 2 of the API document).
func (c *Client) CreateServico(ctx context.Context, s *Servico, opts ...Option) (*Servico, error) {
	return call[Servico](ctx, c, "create servico", http.MethodPost, AreaSearch, ServicesPath, s, opts)
}

// GetServico reads the service catalog entry id.
func (c *Client) GetServico(ctx context.Context, id string, opts ...Option) (*Servico, error) {
	p, err := servicoPath(id)
	if err != nil {
		return nil, err
	}
	return call[Servico](ctx, c, "get servico", http.MethodGet, AreaSearch, p, nil, opts)
}

// ListServicos lists service catalog entries; filters: status, tema_geral,
// orgao_gestor, awaiting_approval, is_free, text.
func (c *Client) ListServicos(ctx context.Context, lo ListOptions, opts ...Option) (*Page[Servico], error) {
	return list[Servico](ctx, c, "list servicos", AreaSearch, ServicesPath, lo, opts)
}

// UpdateServico replaces the service catalog entry id with s.
func (c *Client) UpdateServico(ctx context.Context, id string, s *Servico, opts ...Option) (*Servico, error) {
	p, err := servicoPath(id)
	if err != nil {
		return nil, err
	}
	return call[Servico](ctx, c, "update servico", http.MethodPut, AreaSearch, p, s, opts)
}

// DeleteServico deletes the service catalog entry id.
func (c *Client) DeleteServico(ctx context.Context, id string, opts ...Option) error {
	p, err := servicoPath(id)
	if err != nil {
		return err
	}
	return remove(ctx, c, "delete servico", AreaSearch, p, opts)
}
