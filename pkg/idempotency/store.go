package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// Key states stored in idempotency_keys.state. Answers are stored done; an
// in_progress row is a claim written by an earlier version of this package,
// which holds its key until it expires.
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
}

// lockName is the text whose hash locks i's key: client and key, the client
// length-prefixed so that no two pairs share it.
func (i id) lockName() string { return strconv.Itoa(len(i.client)) + ":" + i.client + ":" + i.key }

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

// The SQL of the idempotency_keys table. Every statement but sweep runs in
// the transaction of the request, so the key, its answer and the handler's
// write commit together or not at all. Expiry is judged by the database
// clock alone, so replicas with skewed clocks agree.

// tryLock takes the transaction-scoped advisory lock of i's key, or reports
// that another transaction holds it (a request with the key is running).
// The lock lives in its own space of two-int4 keys; a hash collision only
// makes a request wait for a retry.
func tryLock(tx *gorm.DB, i id) (bool, error) {
	var locked bool
	err := tx.Raw(`SELECT pg_try_advisory_xact_lock(hashtext('idempotency_keys'), hashtext(?))`, i.lockName()).Scan(&locked).Error
	if err != nil {
		return false, fmt.Errorf("lock idempotency key: %w", err)
	}
	return locked, nil
}

// waitLock takes the advisory lock of i's key, waiting for a transaction
// that holds it to end.
func waitLock(tx *gorm.DB, i id) error {
	if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtext('idempotency_keys'), hashtext(?))`, i.lockName()).Error; err != nil {
		return fmt.Errorf("lock idempotency key: %w", err)
	}
	return nil
}

// lookup returns the row of i's client and key; found is false when there is none.
func lookup(tx *gorm.DB, i id) (rec record, found bool, err error) {
	res := tx.Raw(`SELECT fingerprint, state, coalesce(status, 0) AS status, header, body,
		expires_at <= now() AS expired FROM idempotency_keys WHERE client_id = ? AND key = ?`, i.client, i.key).Scan(&rec)
	if res.Error != nil {
		return rec, false, fmt.Errorf("look up idempotency key: %w", res.Error)
	}
	return rec, res.RowsAffected == 1, nil
}

// deleteExpired removes the row of i's client and key if it has expired.
func deleteExpired(tx *gorm.DB, i id) error {
	err := tx.Exec(`DELETE FROM idempotency_keys
		WHERE client_id = ? AND key = ? AND expires_at <= now()`, i.client, i.key).Error
	if err != nil {
		return fmt.Errorf("delete expired idempotency key: %w", err)
	}
	return nil
}

// insert stores r as the answer to i, kept for ttl from now.
func insert(tx *gorm.DB, i id, r response, ttl time.Duration) error {
	header, err := json.Marshal(r.header)
	if err != nil {
		return fmt.Errorf("encode stored headers: %w", err)
	}
	err = tx.Exec(`INSERT INTO idempotency_keys (client_id, key, fingerprint, state, status, header, body, expires_at)
		VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, now() + make_interval(secs => ?))`,
		i.client, i.key, i.fingerprint, stateDone, r.status, string(header), r.body, ttl.Seconds()).Error
	if err != nil {
		return fmt.Errorf("store idempotent response: %w", err)
	}
	return nil
}

// sweep deletes up to limit expired rows of db, skipping rows another
// sweeper holds, and returns how many it deleted.
func sweep(ctx context.Context, db *gorm.DB, limit int) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys WHERE ctid IN (
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
