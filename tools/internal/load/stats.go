package load

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Stats are the figures of one operation, or of the whole run.
type Stats struct {
	// Operation is the operation's name, or "all".
	Operation string `json:"operation"`
	Requests  uint64 `json:"requests"`
	// Rate is requests sent per second; Throughput successful (2xx, 3xx)
	// answers per second; Success their share of the requests.
	Rate       float64 `json:"rate"`
	Throughput float64 `json:"throughput"`
	Success    float64 `json:"success"`
	// Latency percentiles in milliseconds.
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
	// Statuses counts answers by status; "0" is a request without answer.
	Statuses map[string]int `json:"statuses"`
}

// StatusErrors counts the failed requests of one status (0: no answer)
// and shows one reason.
type StatusErrors struct {
	Status  int    `json:"status"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// collector aggregates results overall and per operation.
type collector struct {
	overall vegeta.Metrics
	byOp    map[string]*vegeta.Metrics
	errors  map[int]*StatusErrors
}

func newCollector() *collector {
	return &collector{byOp: map[string]*vegeta.Metrics{}, errors: map[int]*StatusErrors{}}
}

// add counts res under op ("other" when it matched no operation).
func (c *collector) add(op *Operation, res *vegeta.Result) {
	name := "other"
	if op != nil {
		name = op.Name
	}
	m, ok := c.byOp[name]
	if !ok {
		m = &vegeta.Metrics{}
		c.byOp[name] = m
	}
	m.Add(res)
	c.overall.Add(res)
	if res.Code == 0 || res.Code >= 400 {
		c.addError(res)
	}
}

func (c *collector) addError(res *vegeta.Result) {
	status := int(res.Code)
	e, ok := c.errors[status]
	if !ok {
		e = &StatusErrors{Status: status, Example: reason(res)}
		c.errors[status] = e
	}
	e.Count++
}

// stats closes the metrics and returns the overall figures, those of each
// operation sorted by name, and the errors sorted by status.
func (c *collector) stats() (Stats, []Stats, []StatusErrors) {
	var ops []Stats
	for name, m := range c.byOp {
		ops = append(ops, statsOf(name, m))
	}
	slices.SortFunc(ops, func(a, b Stats) int { return strings.Compare(a.Operation, b.Operation) })
	var errs []StatusErrors
	for _, e := range c.errors {
		errs = append(errs, *e)
	}
	slices.SortFunc(errs, func(a, b StatusErrors) int { return a.Status - b.Status })
	return statsOf("all", &c.overall), ops, errs
}

func statsOf(name string, m *vegeta.Metrics) Stats {
	m.Close()
	return Stats{
		Operation: name, Requests: m.Requests, Rate: m.Rate, Throughput: m.Throughput, Success: m.Success,
		P50: ms(m.Latencies.P50), P90: ms(m.Latencies.P90), P99: ms(m.Latencies.P99), Max: ms(m.Latencies.Max),
		Statuses: m.StatusCodes,
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Count returns how many answers of status the stats hold.
func (s Stats) Count(status int) int { return s.Statuses[strconv.Itoa(status)] }

// reason explains a failed result: the problem's title and detail, else
// vegeta's error.
func reason(res *vegeta.Result) string {
	var p struct{ Title, Detail string }
	if res.Code != 0 && json.Unmarshal(res.Body, &p) == nil && p.Title != "" {
		return excerpt([]byte(strings.TrimSuffix(p.Title+": "+p.Detail, ": ")))
	}
	return excerpt([]byte(res.Error))
}

// maxExcerpt bounds the text kept from an answer.
const maxExcerpt = 200

// excerpt returns the start of b as one printable line.
func excerpt(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, string(b))
	if r := []rune(s); len(r) > maxExcerpt {
		return string(r[:maxExcerpt]) + "…"
	}
	return s
}
