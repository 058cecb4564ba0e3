package postgres_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// newStore returns a Store on a fresh, migrated database.
func newStore(t *testing.T) *postgres.Store {
	t.Helper()
	return postgres.New(pgtest.NewDB(t, migrations.FS))
}

func ptr[T any](v T) *T { return &v }

// must returns v, failing the test given to the returned function when err is set.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

func TestEmpregoRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	emp := must(s.Empresas().Create(ctx, &jobs.NomeInput{Nome: "Acme"}))(t)
	in := &jobs.EmpregoInput{EmpregoFields: jobs.EmpregoFields{
		Titulo: "Dev", TipoContratacao: "CLT", EmpresaID: &emp.ID, SalarioMin: ptr[int32](1000), Latitude: ptr(-22.9),
	}}
	created := must(s.Empregos().Create(ctx, in))(t)
	if created.Status != jobs.StatusCriado || created.Empresa == nil || created.Empresa.Nome != "Acme" || created.Descricao != nil {
		t.Fatalf("created = %+v", created)
	}
	got := must(s.Empregos().Get(ctx, created.ID))(t)
	if !got.CreatedAt.Equal(created.CreatedAt) || *got.SalarioMin != 1000 {
		t.Fatalf("got %+v, want %+v", got, created)
	}
	in.SalarioMin = nil
	in.Status = ptr(jobs.StatusAberto)
	updated := must(s.Empregos().Update(ctx, created.ID, in))(t)
	if updated.SalarioMin != nil || updated.Status != jobs.StatusAberto || !updated.UpdatedAt.After(created.UpdatedAt) || !updated.CreatedAt.Equal(created.CreatedAt) {
		t.Fatalf("updated = %+v", updated)
	}
	err := s.Empresas().Delete(ctx, emp.ID)
	if problem.CodeOf(err) != problem.ECONFLICT {
		t.Fatalf("delete referenced empresa: %v", err)
	}
	full := must(s.Empresas().Get(ctx, emp.ID))(t)
	if len(full.Empregos) != 1 || full.Empregos[0].Empresa != nil {
		t.Fatalf("empresa = %+v", full)
	}
}
