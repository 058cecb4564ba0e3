package pgtest

import (
	"sync/atomic"
	"testing"

	"gorm.io/gorm"
)

// WriteAfterNextCount runs write once, right after the next count query
// (GORM's Count) made through db: a concurrent client's write landing
// between a list's count and its page. write should use another
// connection (a store on db does, outside the reading transaction).
func WriteAfterNextCount(t testing.TB, db *gorm.DB, write func()) {
	t.Helper()
	var armed atomic.Bool
	armed.Store(true)
	err := db.Callback().Query().After("gorm:query").Register("pgtest:write_after_next_count", func(d *gorm.DB) {
		if _, isCount := d.Statement.Dest.(*int64); isCount && armed.CompareAndSwap(true, false) {
			write()
		}
	})
	if err != nil {
		t.Fatalf("register the write after the next count: %v", err)
	}
}
