package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	corev1 "k8s.io/api/core/v1"
)

// dashboards are the Grafana dashboard ConfigMaps of the monitoring
// component, one per program.
var dashboards = []string{"grafana-dashboard-gateway", "grafana-dashboard-jobs", "grafana-dashboard-search-admin"}

// targetLabels are attached by Prometheus when it scrapes, never by a program.
var targetLabels = []string{"job", "instance", "namespace", "pod", "container", "service", "endpoint"}

// expression is one PromQL expression of a rule or a dashboard panel.
type expression struct{ where, expr string }

// monitoringExpressions returns every rule and panel expression of a
// rendered overlay, failing unless it holds the monitoring component whole.
func monitoringExpressions(t *testing.T, objs []kube.Object) []expression {
	t.Helper()
	var out []expression
	rules := kube.All[kube.PrometheusRule](objs)
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules, want 1 (the monitoring component)", len(rules))
	}
	for _, g := range rules[0].Spec.Groups {
		for _, r := range g.Rules {
			out = append(out, expression{"rule " + r.Alert + r.Record, r.Expr.String()})
		}
	}
	for _, name := range dashboards {
		cm := find[corev1.ConfigMap](t, objs, name)
		if cm.Labels["grafana_dashboard"] != "1" {
			t.Errorf("ConfigMap %s: label grafana_dashboard = %q, want \"1\" for the Grafana sidecar", name, cm.Labels["grafana_dashboard"])
		}
		if len(cm.Data) != 1 {
			t.Fatalf("ConfigMap %s holds %d files, want one dashboard", name, len(cm.Data))
		}
		for file, data := range cm.Data {
			var d panelTree
			if err := json.Unmarshal([]byte(data), &d); err != nil {
				t.Fatalf("%s/%s: %v", name, file, err)
			}
			n := len(out)
			out = d.expressions(file, out)
			if len(out) == n {
				t.Errorf("%s: no panel expression", file)
			}
		}
	}
	return out
}

// panelTree is a dashboard or a row: panels, possibly nested, with targets.
type panelTree struct {
	Title   string      `json:"title"`
	Panels  []panelTree `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

func (p panelTree) expressions(where string, out []expression) []expression {
	for _, tg := range p.Targets {
		out = append(out, expression{where + ": " + p.Title, tg.Expr})
	}
	for _, c := range p.Panels {
		out = c.expressions(where, out)
	}
	return out
}

// promql parses with the default options: no experimental functions.
var promql = parser.NewParser(parser.Options{})

// grafanaVariable is a dashboard variable such as $job or ${datasource}.
var grafanaVariable = regexp.MustCompile(`\$\{?\w+\}?`)

// series is what a selector asks for: a metric name and the label names it matches on.
type series struct {
	name   string
	labels []string
}

// selectors parses expr and returns the series its selectors name.
func selectors(expr string) ([]series, error) {
	e, err := promql.ParseExpr(grafanaVariable.ReplaceAllString(expr, "placeholder"))
	if err != nil {
		return nil, err
	}
	var out []series
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		s := series{name: vs.Name}
		for _, m := range vs.LabelMatchers {
			switch {
			case m.Name == model.MetricNameLabel && m.Type == labels.MatchEqual:
				s.name = m.Value
			case m.Name != model.MetricNameLabel:
				s.labels = append(s.labels, m.Name)
			}
		}
		out = append(out, s)
		return nil
	})
	return out, nil
}

// exported are the series the programs expose: sample name to its label
// names, and family name to type.
type exported struct {
	samples  map[string]map[string]bool
	families map[string]dto.MetricType
}

// scrape adds the /metrics of url to e.
func (e *exported) scrape(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/metrics: %s", url, resp.Status)
	}
	text := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := text.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s/metrics: %v", url, err)
	}
	for name, f := range fams {
		e.families[name] = f.GetType()
		names := map[string][]string{name: nil}
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			names = map[string][]string{name + "_bucket": {"le"}, name + "_sum": nil, name + "_count": nil}
		case dto.MetricType_SUMMARY:
			names = map[string][]string{name: {"quantile"}, name + "_sum": nil, name + "_count": nil}
		}
		for sample, extra := range names {
			if e.samples[sample] == nil {
				e.samples[sample] = map[string]bool{}
			}
			for _, l := range extra {
				e.samples[sample][l] = true
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					e.samples[sample][l.GetName()] = true
				}
			}
		}
	}
}

// check returns why s is not a series the programs export, or "".
func (e *exported) check(s series) string {
	if s.name == "" {
		return "a selector without a metric name"
	}
	have, ok := e.samples[s.name]
	if !ok {
		return fmt.Sprintf("%s: no program exports it", s.name)
	}
	for _, l := range s.labels {
		if !have[l] && !slices.Contains(targetLabels, l) {
			return fmt.Sprintf("%s: no exported series has the label %q", s.name, l)
		}
	}
	return ""
}

// exercise makes the programs create the series that appear only once
// used: a proxied call and a 429 of the unauthenticated (ip) limit.
func exercise(t *testing.T, s *stack.Stack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	token, err := s.Token(ctx, stack.Reader)
	if err != nil {
		t.Fatal(err)
	}
	get := func(bearer string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.JobsBaseURL()+client.EscolaridadesPath, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(token); code != http.StatusOK {
		t.Fatalf("GET escolaridades through the gateway with a token: %d, want 200", code)
	}
	for i := 0; ; i++ {
		if get("") == http.StatusTooManyRequests {
			break
		}
		if i == 10 {
			t.Fatal("no 429 after 10 unauthenticated requests over a limit of 2 a minute")
		}
	}
}

func TestMonitoringNamesOnlySeriesTheProgramsExport(t *testing.T) {
	var exprs []expression
	for _, env := range []string{"staging", "production"} {
		got := monitoringExpressions(t, mustRender(t, env))
		if exprs != nil && len(got) != len(exprs) {
			t.Errorf("%s renders %d monitoring expressions, staging %d", env, len(got), len(exprs))
		}
		exprs = got
	}
	s := stack.StartT(t, stack.Options{RateLimitUnauthenticated: "2-M"})
	exercise(t, s)
	e := &exported{samples: map[string]map[string]bool{}, families: map[string]dto.MetricType{}}
	for _, name := range []string{stack.Gateway, stack.Jobs, stack.SearchAdmin} {
		e.scrape(t, s.AdminURLs[name]) // Prometheus scrapes the admin listener
	}
	t.Run("the scrape holds what the alerts need", func(t *testing.T) {
		// Guards the check itself: were the scrape empty, every
		// expression would fail, but were it parsed wrongly these would.
		for _, name := range []string{"http_requests_total", "http_request_duration_seconds_bucket", "gateway_ratelimit_rejections_total", "go_sql_in_use_connections", "oidc_jwks_stale", "search_embeddings_pending", "search_reindex_last_progress_timestamp_seconds"} {
			if _, ok := e.samples[name]; !ok {
				t.Errorf("no %s in the scrape", name)
			}
		}
		if bad := e.check(series{name: "gateway_ratelimit_rejections_total", labels: []string{"reason"}}); bad == "" {
			t.Error("a label no series has passes the check")
		}
		if bad := e.check(series{name: "http_requests_seconds"}); bad == "" {
			t.Error("a metric no program exports passes the check")
		}
	})
	if len(exprs) < 10 {
		t.Fatalf("%d expressions, want the rules and panels of the component", len(exprs))
	}
	for _, x := range exprs {
		sels, err := selectors(x.expr)
		if err != nil {
			t.Errorf("%s: %v\n%s", x.where, err, x.expr)
			continue
		}
		if len(sels) == 0 {
			t.Errorf("%s: no selector in %s", x.where, strings.TrimSpace(x.expr))
		}
		for _, sel := range sels {
			if bad := e.check(sel); bad != "" {
				t.Errorf("%s: %s", x.where, bad)
			}
		}
	}
}

// Staging and production may report to one Prometheus: every aggregation of
// an alert keeps the namespace, so that an alert names its environment and
// staging's load never fires (or hides) one of production's.
func TestEveryAlertKeepsItsEnvironment(t *testing.T) {
	t.Parallel()
	rules := kube.All[kube.PrometheusRule](mustRender(t, "production"))
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules, want 1", len(rules))
	}
	n := 0
	for _, g := range rules[0].Spec.Groups {
		for _, r := range g.Rules {
			e, err := promql.ParseExpr(r.Expr.String())
			if err != nil {
				t.Fatalf("%s: %v", r.Alert, err)
			}
			parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
				a, ok := node.(*parser.AggregateExpr)
				if !ok || a.Op == parser.TOPK || a.Op == parser.BOTTOMK {
					return nil
				}
				n++
				if a.Without == slices.Contains(a.Grouping, "namespace") {
					t.Errorf("%s: %s drops the namespace", r.Alert, a)
				}
				return nil
			})
		}
	}
	if n == 0 {
		t.Fatal("no aggregation in any alert: the check checked nothing")
	}
}
