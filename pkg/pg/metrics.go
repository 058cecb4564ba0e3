package pg

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"gorm.io/gorm"
)

// RegisterPoolMetrics registers the connection-pool series of db with reg,
// labelled db_name=name: go_sql_max_open_connections, go_sql_open_connections,
// go_sql_in_use_connections, go_sql_idle_connections, go_sql_wait_count_total,
// go_sql_wait_duration_seconds_total and the go_sql_max_*_closed_total
// counters. The pool-exhaustion alert of k8s/components/monitoring reads them.
func RegisterPoolMetrics(reg prometheus.Registerer, db *gorm.DB, name string) error {
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("database handle: %w", err)
	}
	if err := reg.Register(collectors.NewDBStatsCollector(sqlDB, name)); err != nil {
		return fmt.Errorf("register pool metrics: %w", err)
	}
	return nil
}
