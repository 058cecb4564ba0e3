package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/server"
)

// BenchmarkCompress serves a list page of about 1 MB (catalog-like items:
// Portuguese words drawn at random, so it compresses worse than real
// descriptions, which repeat themselves) through Compress in each coding,
// and reports the compressed share of the page (ratio) beside the time.
func BenchmarkCompress(b *testing.B) {
	words := strings.Fields("serviço cidadão prefeitura emissão certidão imposto IPTU saúde vacina escola matrícula " +
		"licença alvará transporte ônibus cartão benefício social atendimento online presencial documento " +
		"identidade CPF comprovante residência agendamento consulta solicitação protocolo")
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var s strings.Builder
		for range n {
			s.WriteString(words[r.IntN(len(words))])
			s.WriteByte(' ')
		}
		return s.String()
	}
	items := make([]map[string]any, 250)
	for i := range items {
		items[i] = map[string]any{"id": fmt.Sprint(i), "nome": text(5), "resumo": text(20), "descricao_completa": text(400)}
	}
	page, err := json.Marshal(map[string]any{"data": items})
	if err != nil {
		b.Fatal(err)
	}
	h := server.Compress(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	for _, coding := range []string{"identity", "gzip", "zstd"} {
		b.Run(coding, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/list", nil)
			req.Header.Set("Accept-Encoding", coding)
			var sent int
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				w := &countingWriter{header: http.Header{}}
				h.ServeHTTP(w, req)
				sent = w.n
			}
			b.ReportMetric(float64(sent)/float64(len(page)), "ratio")
		})
	}
}

// countingWriter is a ResponseWriter that counts what it is sent.
type countingWriter struct {
	header http.Header
	n      int
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(int)     {}
func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}
