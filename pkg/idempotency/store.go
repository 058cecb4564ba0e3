package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Key states stored in idempotency_keys.state.
const (
	stateInProgress = "in_progress"
	stateDone       = "done"
)

// id names one request: the key of one client, and the fingerprint of the
// request that first used it.
type id struct {
	client      string
	key         string
	fingerprint []byte
	// until is when the claim of this request expires: a request that
	// stalls past it and finds its key claimed again by a retry matches
	// no row when it completes or releases, so it cannot overwrite or free
	// the retry's claim.
	until time.Time
}

// record is a stored key as lookup finds it.
type record struct {
	Fingerprint []byte
	State       string
	Status      int
	Header      []byte
	Body        []byte
	Expired     bool
}

// matches reports whether r was stored for the same request as i.
func (r *record) matches(i id) bool { return bytes.Equal(r.Fingerprint, i.fingerprint) }

// response is what a handler answered, as stored and replayed.
type response struct {
	status int
	header map[string]string
	body   []byte
}

// store runs the SQL of the idempotency_keys table; expiry is judged by the
// database clock alone, so replicas with skewed clocks agree.
type store struct{ db *gorm.DB }

// claim inserts an in-progress row for i and reports whether this request
// got it, setting i.until; an existing row of the same client and key wins.
func (s store) claim(ctx context.Context, i *id, lease time.Duration) (bool, error) {
	var row struct{ ExpiresAt time.Time }
	res := s.db.WithContext(ctx).Raw(`INSERT INTO idempotency_keys (client_id, key, fingerprint, state, expires_at)
		VALUES (?, ?, ?, ?, now() + make_interval(secs => ?))
		ON CONFLICT (client_id, key) DO NOTHING RETURNING expires_at`, i.client, i.key, i.fingerprint, stateInProgress, lease.Seconds()).Scan(&row)
	if res.Error != nil {
		return false, fmt.Errorf("claim idempotency key: %w", res.Error)
	}
	i.until = row.ExpiresAt
	return res.RowsAffected == 1, nil
}

// lookup returns the row of i's client and key; found is false when there is none.
func (s store) lookup(ctx context.Context, i id) (rec record, found bool, err error) {
	res := s.db.WithContext(ctx).Raw(`SELECT fingerprint, state, coalesce(status, 0) AS status, header, body,
		expires_at <= now() AS expired FROM idempotency_keys WHERE client_id = ? AND key = ?`, i.client, i.key).Scan(&rec)
	if res.Error != nil {
		return rec, false, fmt.Errorf("look up idempotency key: %w", res.Error)
	}
	return rec, res.RowsAffected == 1, nil
}

// deleteExpired removes the row of i's client and key if it has expired.
func (s store) deleteExpired(ctx context.Context, i id) error {
	err := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys
		WHERE client_id = ? AND key = ? AND expires_at <= now()`, i.client, i.key).Error
	if err != nil {
		return fmt.Errorf("delete expired idempotency key: %w", err)
	}
	return nil
}

// complete stores the response of i's claim, kept for ttl from now.
func (s store) complete(ctx context.Context, i id, r response, ttl time.Duration) error {
	header, err := json.Marshal(r.header)
	if err != nil {
		return fmt.Errorf("encode stored headers: %w", err)
	}
	err = s.db.WithContext(ctx).Exec(`UPDATE idempotency_keys
		SET state = ?, status = ?, header = ?::jsonb, body = ?, expires_at = now() + make_interval(secs => ?)
		WHERE client_id = ? AND key = ? AND fingerprint = ? AND state = ? AND expires_at = ?`,
		stateDone, r.status, string(header), r.body, ttl.Seconds(), i.client, i.key, i.fingerprint, stateInProgress, i.until).Error
	if err != nil {
		return fmt.Errorf("store idempotent response: %w", err)
	}
	return nil
}

// release deletes i's claim, so that a retry runs the request again.
func (s store) release(ctx context.Context, i id) error {
	err := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys
		WHERE client_id = ? AND key = ? AND fingerprint = ? AND state = ? AND expires_at = ?`,
		i.client, i.key, i.fingerprint, stateInProgress, i.until).Error
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// sweep deletes up to limit expired rows, skipping rows another sweeper or
// request holds, and returns how many it deleted.
func (s store) sweep(ctx context.Context, limit int) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys WHERE ctid IN (
		SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ? FOR UPDATE SKIP LOCKED)`, limit)
	if res.Error != nil {
		return 0, fmt.Errorf("sweep expired idempotency keys: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// headers decodes the stored replay-safe headers; a row written by this
// package always decodes, anything else replays without them.
func (r *record) headers() map[string]string {
	var h map[string]string
	_ = json.Unmarshal(r.Header, &h)
	return h
}
