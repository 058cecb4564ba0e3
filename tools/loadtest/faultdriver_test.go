package loadtest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/municipal-apis/platform/tools/internal/load"
)

// Retrying a request the suite sent: what a careful client does with the
// same Idempotency-Key until the request is answered for good.
const (
	retryFor     = 45 * time.Second
	firstBackoff = 50 * time.Millisecond
	maxBackoff   = time.Second
)

// retried reports statuses after which the client sends the same request
// again: no answer, and the gateway's or a service's "not now".
func retried(status int) bool {
	switch status {
	case 0, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// call is one request of the mix, as sent on every attempt.
type call struct {
	op     string
	area   load.Area
	method string
	url    string
	body   []byte
	key    string         // Idempotency-Key of a create
	create *load.Resource // the resource a create writes
	name   string         // the marked name it writes
}

// acked is a write the client saw acknowledged.
type acked struct {
	resource *load.Resource
	id, name string
}

// faultDriver sends a mixed load through the gateway from a few workers,
// each retrying its request until it is answered for good, and counts every
// attempt under the phase in which it was sent.
type faultDriver struct {
	hc     *http.Client
	bases  map[load.Area]string
	tokens map[load.Area]string
	marker string

	mu       sync.Mutex
	phase    int
	attempts []map[int]int // per phase: status → attempts (0: no answer)
	requests []int         // per phase: requests started
	acked    []acked
	failed   []string // requests never answered for good, with why
	updates  []string // names sent by PUT to the escolaridade updated
	n        uint64
	seedID   string
}

func newFaultDriver(bases, tokens map[load.Area]string, phases int) *faultDriver {
	marker := make([]byte, 6)
	_, _ = rand.Read(marker)
	d := &faultDriver{
		hc:    &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
		bases: bases, tokens: tokens, marker: "fs-" + hex.EncodeToString(marker),
		attempts: make([]map[int]int, phases), requests: make([]int, phases),
	}
	for i := range d.attempts {
		d.attempts[i] = map[int]int{}
	}
	return d
}

// enter makes phase i the one later attempts are counted under.
func (d *faultDriver) enter(i int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.phase = i
}

// run sends requests from workers until ctx ends, then waits for the
// requests under way to be answered.
func (d *faultDriver) run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	for w := range workers {
		rng := mrand.New(mrand.NewPCG(uint64(w), 7))
		wg.Go(func() {
			for ctx.Err() == nil {
				d.do(d.next(rng))
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
}

// seed creates the escolaridade that the updates of the mix rename.
func (d *faultDriver) seed() error {
	c := d.create(load.Escolaridade, d.number())
	if ok := d.do(c); !ok {
		return fmt.Errorf("seed %s: %v", c.name, d.failed)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seedID = d.acked[len(d.acked)-1].id
	return nil
}

func (d *faultDriver) number() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n++
	return d.n
}

// next picks the next request: half creates, a tenth updates, reads else.
func (d *faultDriver) next(rng *mrand.Rand) call {
	n := d.number()
	switch r := rng.IntN(20); {
	case r < 3:
		return d.create(load.Servico, n)
	case r < 6:
		return d.create(load.Emprego, n)
	case r < 8:
		return d.create(load.Escolaridade, n)
	case r < 10:
		return d.create(load.Categoria, n)
	case r < 12:
		name := d.name(load.Escolaridade, n)
		d.mu.Lock()
		d.updates = append(d.updates, name)
		d.mu.Unlock()
		return d.call("update-escolaridade", load.JobsArea, http.MethodPut, load.Escolaridade.Path+"/"+d.seedID, map[string]any{"nivel": name})
	case r < 14:
		return d.call("list-empregos", load.JobsArea, http.MethodGet, "/api/v1/empregos?per_page=5", nil)
	case r < 16:
		return d.call("list-servicos", load.SearchArea, http.MethodGet, "/api/v1/admin/services?per_page=5", nil)
	case r < 18:
		return d.call("search", load.SearchArea, http.MethodGet, "/api/v1/search?"+url.Values{"q": {"licença de obras"}}.Encode(), nil)
	default:
		return d.call("list-escolaridades", load.JobsArea, http.MethodGet, "/api/v1/escolaridades?per_page=5", nil)
	}
}

// name is the marked name of the n-th row of r.
func (d *faultDriver) name(r *load.Resource, n uint64) string {
	return fmt.Sprintf("%s %s-%d", r.Name, d.marker, n)
}

// create is the n-th create of r, with its own Idempotency-Key.
func (d *faultDriver) create(r *load.Resource, n uint64) call {
	name := d.name(r, n)
	c := d.call("create-"+r.Name, r.Area, http.MethodPost, r.Path, bodyOf(r, name, n))
	c.key, c.create, c.name = d.marker+"-"+strconv.FormatUint(n, 10), r, name
	return c
}

func (d *faultDriver) call(op string, area load.Area, method, path string, body map[string]any) call {
	c := call{op: op, area: area, method: method, url: d.bases[area] + path}
	if body != nil {
		c.body, _ = json.Marshal(body)
	}
	return c
}

// bodyOf is a valid body of r named name.
func bodyOf(r *load.Resource, name string, n uint64) map[string]any {
	switch r {
	case load.Servico:
		return map[string]any{
			"nome_servico": name, "orgao_gestor": []string{"Secretaria Municipal de Urbanismo"},
			"publico_especifico": []string{"Cidadão"}, "resumo": "Licença de obras pela internet.",
			"tema_geral": "Obras", "descricao_completa": "Pedido de licença de obras e reformas, com acompanhamento pelo protocolo.",
			"custo_servico": "Gratuito", "tempo_atendimento": "5 dias úteis", "status": n % 2,
		}
	case load.Emprego:
		return map[string]any{
			"titulo": name, "descricao": "Vaga de obras.", "tipo_contratacao": "CLT", "jornada_trabalho": "INTEGRAL",
			"turno": "MANHA", "status": "ABERTO", "numero_vagas": 1 + n%3, "salario_min": 2000, "salario_max": 3000,
			"data_limite_candidatura": "2030-12-31",
		}
	}
	return map[string]any{r.NameField: name}
}

// do sends c until it is answered for good or retryFor has passed, and
// reports whether it was acknowledged (2xx).
func (d *faultDriver) do(c call) bool {
	d.mu.Lock()
	d.requests[d.phase]++
	d.mu.Unlock()
	deadline := time.Now().Add(retryFor)
	backoff := firstBackoff
	for {
		status, header, body, err := d.send(c)
		d.count(status)
		switch {
		case status >= 200 && status < 300:
			return d.acknowledge(c, body)
		case !retried(status) || time.Now().After(deadline):
			d.fail(fmt.Sprintf("%s %s: %d %v %.200s", c.method, c.url, status, err, body))
			return false
		}
		time.Sleep(wait(header, backoff))
		backoff = min(2*backoff, maxBackoff)
	}
}

// wait is the pause before a retry: the Retry-After asked for (capped) or
// the backoff.
func wait(h http.Header, backoff time.Duration) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, maxBackoff)
	}
	return backoff
}

// send makes one attempt of c; status 0 means no answer.
func (d *faultDriver) send(c call) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(c.method, c.url, bytes.NewReader(c.body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.tokens[c.area])
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Idempotency-Key", c.key)
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, body, nil
}

func (d *faultDriver) count(status int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.attempts[d.phase][status]++
}

// acknowledge records the row a create's 2xx describes.
func (d *faultDriver) acknowledge(c call, body []byte) bool {
	if c.create == nil {
		return true
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		d.fail(fmt.Sprintf("%s: the answer is not JSON: %v", c.op, err))
		return false
	}
	if got[c.create.NameField] != c.name {
		d.fail(fmt.Sprintf("%s: answered %s %v, sent %q", c.op, c.create.NameField, got[c.create.NameField], c.name))
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.acked = append(d.acked, acked{resource: c.create, id: fmt.Sprint(got["id"]), name: c.name})
	return true
}

func (d *faultDriver) fail(why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failed = append(d.failed, why)
}

// statuses writes the attempts of phase i as "201×40 503×2".
func (d *faultDriver) statuses(i int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	codes := make([]int, 0, len(d.attempts[i]))
	for code := range d.attempts[i] {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for j, code := range codes {
		label := strconv.Itoa(code)
		if code == 0 {
			label = "no answer"
		}
		parts[j] = fmt.Sprintf("%s×%d", label, d.attempts[i][code])
	}
	return strings.Join(parts, " ")
}
