package searchload

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// seedServicos inserts c's Servicos, published, in one statement into the
// search-admin database at dsn, without search documents, and moves the
// catalog to v1 so that a re-index to v3 builds every document the way
// bulk indexing does (search-admin's BenchmarkSearch seeds the same way).
func seedServicos(ctx context.Context, dsn string, c Catalog) error {
	raw, err := json.Marshal(c.Servicos)
	if err != nil {
		return fmt.Errorf("encode the catalog: %w", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect to the search database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, `
INSERT INTO servicos (id, nome_servico, orgao_gestor, publico_especifico, resumo, tema_geral, autor,
    descricao_completa, documentos_necessarios, status, published_at, created_at, last_update)
SELECT gen_random_uuid(), b.doc->>'nome_servico', b.doc->'orgao_gestor', b.doc->'publico_especifico',
    b.doc->>'resumo', b.doc->>'tema_geral', 'searchload', b.doc->>'descricao_completa', b.doc->'documentos_necessarios',
    1, 1700000000, 1700000000, 1700000000
FROM jsonb_array_elements($1::jsonb) AS b(doc)`, string(raw))
	if err != nil {
		return fmt.Errorf("seed %d servicos: %w", len(c.Servicos), err)
	}
	if _, err := conn.Exec(ctx, `UPDATE search_settings SET current_version = 'v1'`); err != nil {
		return fmt.Errorf("move the catalog to v1: %w", err)
	}
	return nil
}

// settle analyzes and vacuums the seeded tables and checkpoints, so the
// measurement sees the steady state and not the clean-up of the bulk load.
func settle(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect to the search database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, stmt := range []string{"VACUUM (ANALYZE) servicos, search_documents, search_words", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// reindex starts a re-index to v3 through the gateway and waits until v3 is current.
func reindex(ctx context.Context, hc *http.Client, base, token string) error {
	resp, err := call(ctx, hc, http.MethodPost, base+"/api/v1/admin/migration/start", token, `{"schema_version":"v3"}`)
	if err != nil {
		return err
	}
	if resp.status != http.StatusAccepted {
		return fmt.Errorf("start the re-index: %d %s", resp.status, resp.body)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := call(ctx, hc, http.MethodGet, base+"/api/v1/admin/migration/status", token, "")
		if err != nil {
			return err
		}
		var st struct {
			CurrentVersion string `json:"current_version"`
			Migration      *struct {
				State string `json:"state"`
			} `json:"migration"`
		}
		if err := json.Unmarshal([]byte(resp.body), &st); err != nil {
			return fmt.Errorf("decode the re-index status %q: %w", resp.body, err)
		}
		if st.Migration != nil && st.Migration.State != "running" {
			if st.CurrentVersion != "v3" {
				return fmt.Errorf("the re-index ended without switching: %s", resp.body)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("the re-index to v3 did not finish within 5 minutes")
}

type answer struct {
	status int
	body   string
}

func call(ctx context.Context, hc *http.Client, method, url, token, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: read the answer: %w", method, url, err)
	}
	return answer{resp.StatusCode, string(b)}, nil
}
