package catalog

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

// flakySource is a VectorSource whose LISTEN connections follow a script:
// each entry is how long a connection stays up, or a negative duration for
// one that fails before listening.
type flakySource struct {
	VectorSource
	script []time.Duration
	calls  int
	done   context.CancelFunc
}

func (f *flakySource) ListenChanges(ctx context.Context, ready func(), _ func(string)) error {
	defer func() { f.calls++ }()
	if f.calls == len(f.script) {
		f.done()
		return ctx.Err()
	}
	if up := f.script[f.calls]; up >= 0 {
		ready()
		time.Sleep(up)
	}
	return errors.New("connection lost")
}

// retryLog records the retry_in of every "change notifications interrupted" line.
type retryLog struct {
	mu     sync.Mutex
	delays []string
}

func (l *retryLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *retryLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *retryLog) WithGroup(string) slog.Handler            { return l }
func (l *retryLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "retry_in" {
			l.mu.Lock()
			l.delays = append(l.delays, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

func TestTheListenerReconnectsQuicklyAgainAfterAHealthyConnection(t *testing.T) {
	t.Parallel()
	const failed = -1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &flakySource{done: cancel, script: []time.Duration{
		failed, failed, failed, // the database is away: the pause doubles
		50 * time.Millisecond, // a connection that held for the healthy period
		failed, failed,        // the next interruption starts from the first pause
		5 * time.Millisecond, // one that came up but dropped at once keeps doubling
		failed,
	}}
	log := &retryLog{}
	s := NewVectorSync(NewVectorIndex(), src, DefaultRegistry(), VectorSyncConfig{Recheck: time.Second, MaxTargeted: 1}, slog.New(log))
	s.retry = reconnectBackoff{first: time.Millisecond, most: 16 * time.Millisecond, healthy: 40 * time.Millisecond}
	s.listen(ctx)
	want := []string{"1ms", "2ms", "4ms", "1ms", "2ms", "4ms", "8ms", "16ms"}
	if !slices.Equal(log.delays, want) {
		t.Errorf("pauses before reconnecting = %v, want %v", log.delays, want)
	}
}
