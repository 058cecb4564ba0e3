package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

func TestAListsCountAndPageComeFromOneSnapshot(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t, migrations.FS)
	s := postgres.New(db)
	ctx := context.Background()
	emp := must(s.Empresas().Create(ctx, &jobs.NomeInput{Nome: "Acme"}))(t)
	for i := range 3 {
		must(s.Empregos().Create(ctx, &jobs.EmpregoInput{EmpregoFields: jobs.EmpregoFields{
			Titulo: fmt.Sprintf("Vaga %d", i), TipoContratacao: "CLT", EmpresaID: &emp.ID}}))(t)
	}
	pgtest.WriteAfterNextCount(t, db, func() {
		must(s.Empregos().Create(ctx, &jobs.EmpregoInput{EmpregoFields: jobs.EmpregoFields{
			Titulo: "Vaga de um cliente concorrente", TipoContratacao: "CLT", EmpresaID: &emp.ID}}))(t)
	})
	list := must(s.Empregos().List(ctx, jobs.EmpregoFilter{EmpresaID: &emp.ID}, jobs.Page{Number: 1, PerPage: 50}))(t)
	if int(list.Meta.Total) != len(list.Data) {
		t.Errorf("meta.total = %d with %d items on the only page: the count and the page saw different data", list.Meta.Total, len(list.Data))
	}
}
