package server

import (
	"maps"
	"sync"
	"sync/atomic"
)

// SeriesMap holds the metric series of every label set seen, created on
// first use and copied on write, so a request finds its series with one
// lock-free map lookup instead of WithLabelValues' label hash and locked
// lookup. Label sets must come from a bounded set (routes, methods,
// statuses, outcomes), or the map grows with them. The zero value is ready.
type SeriesMap[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

// Get returns the series of k, made by create on first use.
func (s *SeriesMap[K, V]) Get(k K, create func() V) V {
	if p := s.m.Load(); p != nil {
		if v, ok := (*p)[k]; ok {
			return v
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var next map[K]V
	if old := s.m.Load(); old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
		next = maps.Clone(*old)
	} else {
		next = map[K]V{}
	}
	v := create()
	next[k] = v
	s.m.Store(&next)
	return v
}

// Len returns how many series the map holds.
func (s *SeriesMap[K, V]) Len() int {
	if p := s.m.Load(); p != nil {
		return len(*p)
	}
	return 0
}
