package catalog

import (
	"context"
	"fmt"
)

// SchemaReport lists the search-schema versions available for re-indexing and
// the one in use (docs/decisions.md#search-schema-versions).
type SchemaReport struct {
	CurrentVersion    string       `json:"current_version"`
	AvailableVersions []string     `json:"available_versions"`
	Schemas           []SchemaInfo `json:"schemas"`
}

// SchemaInfo describes one search-schema version.
type SchemaInfo struct {
	Version        string        `json:"version"`
	Description    string        `json:"description"`
	EmbeddingModel string        `json:"embedding_model"`
	Dimensions     int           `json:"dimensions"`
	Normalization  string        `json:"normalization"`
	Fields         []SchemaField `json:"fields"`
}

// Schemas reports the registry with the current version read from the
// database now.
func (s *Service) Schemas(ctx context.Context) (SchemaReport, error) {
	current, err := s.store.CurrentVersion(ctx)
	if err != nil {
		return SchemaReport{}, fmt.Errorf("read current schema version: %w", err)
	}
	r := SchemaReport{CurrentVersion: current, AvailableVersions: s.schemas.Versions()}
	for _, sc := range s.schemas.All() {
		norm := "whitespace"
		if sc.Fold {
			norm = "lowercase, unaccent, whitespace"
		}
		r.Schemas = append(r.Schemas, SchemaInfo{
			Version: sc.Version, Description: sc.Description, EmbeddingModel: s.embedder.Model(),
			Dimensions: sc.Dimensions, Normalization: norm, Fields: sc.Fields,
		})
	}
	return r, nil
}
