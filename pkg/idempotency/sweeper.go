package idempotency

import (
	"context"
	"time"
)

// sweepBatch bounds one DELETE, so sweeping a large backlog never holds
// many row locks at once.
const sweepBatch = 1000

// Sweep deletes every expired key and returns how many it deleted.
func (k *Keys) Sweep(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, err := sweep(ctx, k.db, sweepBatch)
		total += n
		if err != nil || n < sweepBatch {
			return total, err
		}
	}
}

// RunSweeper sweeps at once and then every SweepInterval until ctx is done;
// failures are logged and retried at the next tick. Run it in its own
// goroutine; several replicas may sweep at the same time.
func (k *Keys) RunSweeper(ctx context.Context) {
	t := time.NewTicker(k.cfg.SweepInterval)
	defer t.Stop()
	for {
		n, err := k.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			k.log.ErrorContext(ctx, "sweep of idempotency keys failed", "err", err)
		case n > 0:
			k.log.InfoContext(ctx, "expired idempotency keys deleted", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
