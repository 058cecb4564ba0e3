package http_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/idempotency"
)

// seedRows is the size of the empregos table the benchmarks run against.
const seedRows = 100_000

// seed fills the reference tables and seedRows postings with one bulk
// INSERT ... SELECT generate_series, spreading the filter columns evenly.
func seed(b *testing.B, e *env) {
	b.Helper()
	stmts := []string{
		"INSERT INTO empresas (nome) SELECT 'Empresa ' || g FROM generate_series(1, 100) g",
		"INSERT INTO escolaridades (nivel) SELECT 'Nivel ' || g FROM generate_series(1, 10) g",
		"INSERT INTO orgaos (nome) SELECT 'Orgao ' || g FROM generate_series(1, 20) g",
		fmt.Sprintf(`INSERT INTO empregos (titulo, descricao, numero_vagas, salario_min, salario_max, empresa_id, escolaridade_id, orgao_id,
			jornada_trabalho, tipo_contratacao, turno, status)
		SELECT 'Vaga ' || g, 'Descrição da vaga ' || g, 1 + g %% 5, 1500 + g %% 1000, 3000 + g %% 1000, 1 + g %% 100, 1 + g %% 10, 1 + g %% 20,
			(ARRAY['INTEGRAL','MEIO_PERIODO','FLEXIVEL','ESTAGIO','HOME_OFFICE'])[1 + g %% 5],
			(ARRAY['CLT','ESTAGIO','JOVEM_APRENDIZ','MEI','PJ'])[1 + (g / 5) %% 5],
			(ARRAY['MANHA','TARDE','NOITE','INTEGRAL','LIVRE'])[1 + (g / 25) %% 5],
			(ARRAY['CRIADO','ABERTO','EM_ANALISE','ENCERRADO'])[1 + g %% 4]
		FROM generate_series(1, %d) g`, seedRows),
		"ANALYZE",
	}
	for _, s := range stmts {
		if err := e.db.Exec(s).Error; err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
}

// measure runs op b.N times over 4 goroutines and reports throughput and
// latency percentiles; op returns the status it got, which must be want.
func measure(b *testing.B, want int, op func(i int) int) {
	b.Helper()
	var mu sync.Mutex
	var latencies []time.Duration
	var counter int
	b.SetParallelism(2) // 2 × GOMAXPROCS goroutines
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var local []time.Duration
		for pb.Next() {
			mu.Lock()
			counter++
			i := counter
			mu.Unlock()
			t0 := time.Now()
			if got := op(i); got != want {
				b.Errorf("status %d, want %d", got, want)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		latencies = append(latencies, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(float64(len(latencies)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

func BenchmarkCreateEmprego(b *testing.B) { benchmarkCreateEmprego(b, false) }

// BenchmarkCreateEmpregoWithIdempotencyKey sends a fresh Idempotency-Key with
// each create: the cost of claiming the key and storing the answer.
func BenchmarkCreateEmpregoWithIdempotencyKey(b *testing.B) { benchmarkCreateEmprego(b, true) }

// benchmarkCreateEmprego creates postings against the seeded database, each
// with its own Idempotency-Key when withKey is set.
func benchmarkCreateEmprego(b *testing.B, withKey bool) {
	e := newEnv(b)
	seed(b, e)
	token := "Bearer " + e.token(admin)
	h := e.h
	measure(b, http.StatusCreated, func(i int) int {
		body := fmt.Sprintf(`{"titulo":"Bench %d","tipo_contratacao":"CLT","status":"ABERTO","salario_min":1800,"salario_max":2500,
			"empresa_id":%d,"escolaridade_id":%d,"orgao_id":%d,"turno":"MANHA","data_limite_candidatura":"2025-12-31"}`, i, 1+i%100, 1+i%10, 1+i%20)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/empregos", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", token)
		if withKey {
			req.Header.Set(idempotency.Header, fmt.Sprintf("bench-%d", i))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	})
}

func BenchmarkListEmpregosWithFilters(b *testing.B) {
	e := newEnv(b)
	seed(b, e)
	token := "Bearer " + e.token(readOnly)
	h := e.h
	queries := []string{
		"?status=ABERTO&tipo_contratacao=CLT&per_page=20",
		"?empresa_id=42&status=ABERTO",
		"?orgao_id=7&turno=NOITE&page=3&per_page=50",
		"?jornada_trabalho=HOME_OFFICE&escolaridade_id=3&page=10",
		"?per_page=100&page=200",
	}
	measure(b, http.StatusOK, func(i int) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/empregos"+queries[i%len(queries)], nil)
		req.Header.Set("Authorization", token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	})
}
