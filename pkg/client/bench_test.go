package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// BenchmarkGetEmprego measures one typed call on loopback with a cached
// token: request building, token lookup, the round trip through pkg/auth's
// verification and decoding.
func BenchmarkGetEmprego(b *testing.B) {
	s := newScript(ok(http.StatusOK, map[string]any{"id": 9, "titulo": "Pedreiro", "tipo_contratacao": "CLT", "status": "ABERTO"}))
	a := newAPI(b, routeAll(s))
	c := mustClient(b, a.config(b, devidptest.JobsAdmin))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetEmprego(ctx, 9); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateServicoParallel measures concurrent POSTs sharing one
// client and its token, each with its own Idempotency-Key.
func BenchmarkCreateServicoParallel(b *testing.B) {
	s := newScript(ok(http.StatusCreated, map[string]any{"id": "0190f", "nome_servico": "IPTU"}))
	a := newAPI(b, routeAll(s))
	c := mustClient(b, a.config(b, devidptest.CatalogAdmin))
	in := &client.Servico{NomeServico: "IPTU", OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"todos"}, Resumo: "r", TemaGeral: "t"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CreateServico(context.Background(), in); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
