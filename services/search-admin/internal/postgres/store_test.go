package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

func newStore(t *testing.T) (*postgres.Store, *gorm.DB) {
	t.Helper()
	db := pgtest.NewDB(t, migrations.FS, idempotency.MigrationSet)
	return postgres.New(db), db
}

// fixedDocs is an Indexer that writes docs whatever the versions.
func fixedDocs(docs ...catalog.Document) catalog.Indexer {
	return func(catalog.WriteVersions) ([]catalog.Document, error) { return docs, nil }
}

// mustCreate stores a Servico named name with a document of the current
// version, pending when pending is set.
func mustCreate(t *testing.T, st *postgres.Store, name string, pending bool, edit func(*catalog.Servico)) *catalog.Servico {
	t.Helper()
	id, _ := uuid.NewV7()
	sv := &catalog.Servico{ID: id.String(), NomeServico: name, OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"Cidadão"},
		Resumo: "Resumo de " + name, TemaGeral: "Tributos", Autor: "tester", CreatedAt: time.Now().Unix(), LastUpdate: time.Now().Unix()}
	if edit != nil {
		edit(sv)
	}
	doc := catalog.SchemaV3.Document(sv)
	doc.Pending = pending
	if !pending {
		doc.Embedding, doc.Model = []float32{0.6, -0.8, 0.125}, "test/model"
	}
	if err := st.Create(context.Background(), sv, fixedDocs(doc)); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return sv
}

func TestStoreRoundTripsEveryMember(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	yes, hint, pub := true, "use for IPTU", int64(1700000000)
	in := mustCreate(t, st, "Emissão de 2ª via do IPTU", false, func(s *catalog.Servico) {
		s.Agents = &catalog.Agents{ExclusiveForAgents: true, ToolHint: hint}
		s.AwaitingApproval, s.IsFree, s.FixarDestaque = &yes, &yes, &yes
		s.CanaisDigitais = []string{"https://carioca.rio"}
		s.ExtraFields = map[string]any{"nested": map[string]any{"n": 1.5}, "emoji": "🚌"}
		s.InstrucoesSolicitante, s.PublishedAt, s.Status = &hint, &pub, 1
	})
	got, err := st.Get(context.Background(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.NomeServico != in.NomeServico || got.Agents == nil || got.Agents.ToolHint != hint || *got.PublishedAt != pub ||
		got.ExtraFields["emoji"] != "🚌" || !slices.Equal(got.CanaisDigitais, in.CanaisDigitais) || got.Status != 1 {
		t.Errorf("stored servico differs: %+v", got)
	}
	if got.SchemaVersion != "v3" || got.EmbeddingStatus != catalog.EmbeddingReady || !slices.Equal(got.Embedding, []float32{0.6, -0.8, 0.125}) {
		t.Errorf("document not attached: version %q status %q embedding %v", got.SchemaVersion, got.EmbeddingStatus, got.Embedding)
	}
	if got.SearchContent == "" {
		t.Error("search_content is empty")
	}
}

func TestStoreAnswersNotFound(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	missing := uuid.NewString()
	tests := []struct {
		name string
		call func() error
	}{
		{"get of an unknown id", func() error { _, err := st.Get(context.Background(), missing); return err }},
		{"delete of an unknown id", func() error { return st.Delete(context.Background(), missing) }},
		{"update of an unknown id", func() error {
			_, err := st.Update(context.Background(), missing, func(*catalog.Servico) {}, nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is not found", func(t *testing.T) {
			if err := tt.call(); !problem.Is(err, problem.ENOTFOUND) {
				t.Errorf("err = %v, want not found", err)
			}
		})
	}
}

func TestDocumentIsAccentInsensitivePortugueseFullText(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	sv := mustCreate(t, st, "Certidão de Situação Fiscal", false, nil)
	tests := []struct {
		query string
		match bool
	}{
		{"certidao", true},
		{"CERTIDÃO", true},
		{"situacao fiscal", true},
		{"transporte", false},
	}
	for _, tt := range tests {
		t.Run("query "+tt.query, func(t *testing.T) {
			var n int64
			err := db.Raw(`SELECT count(*) FROM search_documents WHERE servico_id = ?
				AND document @@ plainto_tsquery('portuguese', search_unaccent(?))`, sv.ID, tt.query).Scan(&n).Error
			if err != nil {
				t.Fatal(err)
			}
			if (n == 1) != tt.match {
				t.Errorf("match = %v, want %v", n == 1, tt.match)
			}
		})
	}
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	yes, no := true, false
	mustCreate(t, st, "Alvará de funcionamento", false, func(s *catalog.Servico) { s.Status, s.IsFree = 1, &no })
	mustCreate(t, st, "Coleta de lixo 100%", false, func(s *catalog.Servico) {
		s.TemaGeral, s.OrgaoGestor, s.AwaitingApproval, s.IsFree = "Limpeza", []string{"COMLURB"}, &yes, &yes
	})
	mustCreate(t, st, "Poda de árvore", true, func(s *catalog.Servico) { s.TemaGeral = "Limpeza" })
	one, published := 1, 1
	tests := []struct {
		name   string
		filter catalog.Filter
		want   []string
	}{
		{"no filter lists everything newest first", catalog.Filter{}, []string{"Poda de árvore", "Coleta de lixo 100%", "Alvará de funcionamento"}},
		{"status selects published entries", catalog.Filter{Status: &published}, []string{"Alvará de funcionamento"}},
		{"tema_geral matches exactly", catalog.Filter{TemaGeral: "Limpeza"}, []string{"Poda de árvore", "Coleta de lixo 100%"}},
		{"orgao_gestor matches one item", catalog.Filter{OrgaoGestor: "COMLURB"}, []string{"Coleta de lixo 100%"}},
		{"awaiting_approval false includes unset", catalog.Filter{AwaitingApproval: &no}, []string{"Poda de árvore", "Alvará de funcionamento"}},
		{"is_free true", catalog.Filter{IsFree: &yes}, []string{"Coleta de lixo 100%"}},
		{"text ignores accents and case", catalog.Filter{Text: "ARVORE"}, []string{"Poda de árvore"}},
		{"text treats percent literally", catalog.Filter{Text: "100%"}, []string{"Coleta de lixo 100%"}},
		{"text percent alone matches nothing else", catalog.Filter{Text: "%"}, []string{"Coleta de lixo 100%"}},
		{"second page of one item", catalog.Filter{Page: 2, PerPage: one}, []string{"Coleta de lixo 100%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.filter
			if f.Page == 0 {
				f.Page, f.PerPage = 1, 20
			}
			page, err := st.List(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range page.Data {
				names = append(names, s.NomeServico)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("names = %q, want %q", names, tt.want)
			}
		})
	}
}

func TestConcurrentClaimsTakeDisjointDocuments(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	for i := range 20 {
		mustCreate(t, st, "pendente "+string(rune('a'+i)), true, nil)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				docs, err := st.ClaimPending(context.Background(), 3, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(docs) == 0 {
					return
				}
				mu.Lock()
				for _, d := range docs {
					seen[d.ServicoID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 20 {
		t.Errorf("claimed %d distinct documents, want 20", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("document %s claimed %d times", id, n)
		}
	}
}

func TestCompleteEmbeddingYieldsToANewerContent(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	ctx := context.Background()
	sv := mustCreate(t, st, "Original", true, nil)
	claimed, err := st.ClaimPending(ctx, 10, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim = %v, %v", claimed, err)
	}
	renamed := *sv
	renamed.NomeServico = "Renomeado"
	doc := catalog.SchemaV3.Document(&renamed)
	doc.Pending = true
	if _, err := st.Update(ctx, sv.ID, func(s *catalog.Servico) { s.NomeServico = "Renomeado" }, fixedDocs(doc)); err != nil {
		t.Fatal(err)
	}
	if err := st.CompleteEmbedding(ctx, claimed[0], []float32{1, 0, 0}, "test/model"); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.EmbeddingStatus != catalog.EmbeddingPending || got.Embedding != nil {
		t.Errorf("stale embedding was stored over newer content: status %q embedding %v", got.EmbeddingStatus, got.Embedding)
	}
}

func TestAListsCountAndPageComeFromOneSnapshot(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	for _, name := range []string{"Alvará", "Coleta", "Poda"} {
		mustCreate(t, st, name, false, nil)
	}
	// A concurrent client's write lands right after the count.
	pgtest.WriteAfterNextCount(t, db, func() { mustCreate(t, st, "Criado entre a contagem e a página", false, nil) })
	page, err := st.List(context.Background(), catalog.Filter{Page: 1, PerPage: 50})
	if err != nil {
		t.Fatal(err)
	}
	if int(page.Total) != len(page.Data) {
		t.Errorf("total = %d with %d items on the only page: the count and the page saw different data", page.Total, len(page.Data))
	}
}
