package pg_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/prometheus/client_golang/prometheus"
)

func TestPoolMetricsReportTheConfiguredMaximum(t *testing.T) {
	db, err := pg.Open(context.Background(), pg.Config{URL: pgtest.NewURL(t, emptyMigrations), MaxOpenConns: 7, MaxIdleConns: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	reg := prometheus.NewRegistry()
	if err := pg.RegisterPoolMetrics(reg, db, "test"); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if v := m.GetLabel()[0].GetValue(); v != "test" {
				t.Errorf("%s: db_name = %q, want test", f.GetName(), v)
			}
			found[f.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	if found["go_sql_max_open_connections"] != 7 {
		t.Errorf("go_sql_max_open_connections = %v, want 7 (all: %v)", found["go_sql_max_open_connections"], found)
	}
	if _, ok := found["go_sql_in_use_connections"]; !ok {
		t.Errorf("no go_sql_in_use_connections in %v", found)
	}
}
