// Package idempotency makes POST and PATCH requests safe to retry with an
// Idempotency-Key header (IETF draft-ietf-httpapi-idempotency-key-header),
// storing keys per client in the service's own PostgreSQL database.
//
// Keys.Wrap wraps a handler. A request without the header runs it
// untouched. With one, the key is scoped to the caller's client id
// (auth.ClaimsFrom, so the wrapped handler goes after auth.Middleware and the
// scope check), and the request is fingerprinted by method, route, path,
// query and its exact body bytes:
//
//   - the first request runs, and its answer (status, body, Content-Type and
//     Location) is stored for Config.TTL, 24 h by default, in the same
//     transaction as the handler's write; the answer is sent once that
//     transaction has committed; a 5xx or a panic rolls everything back, so
//     a retry runs again;
//   - a repeat with the same fingerprint gets the stored answer, 4xx
//     included, with Idempotent-Replayed: true;
//   - a repeat while the first still runs is a 409 with Retry-After: 1;
//   - the same key with another fingerprint is a 422 whose errors name the
//     Idempotency-Key header with code "reused";
//   - an empty key, one over 255 characters, or one with characters outside
//     printable ASCII is a 400; the draft's quoted form ("abc") and the bare
//     form (abc) are the same key.
//
// # Exactly once
//
// The handler runs inside pg.Atomic: one transaction of the Keys' database
// that first takes a transaction-scoped advisory lock on the client's key
// (pg_try_advisory_xact_lock; held: the 409) and reads the stored answer,
// and that every pg.Tx and pg.Conn of the handler joins, so the handler
// must reach that database through them with the request's context. The
// handler's write, the key and its answer therefore commit together or not
// at all: a process or connection that dies at any point before COMMIT
// leaves nothing (the lock goes with the session, and a retry runs once),
// and one that dies after it leaves both (a retry replays). When Postgres
// aborted the transaction without keeping anything (a lost connection, a
// deadlock), the handler runs again inside, as pg.Tx would, waiting for
// the key's lock, which the lost session may hold while it ends, rather
// than answering its own request with the 409 of a key in use. When the
// connection breaks during COMMIT itself, the request waits for the key's
// lock and looks the key up: a stored answer is sent, and nothing stored
// means the request runs again. The answer is held back until then, so the
// client never sees the answer of a run that did not commit.
//
// A keyed request holds one connection of the pool in a transaction while
// its handler runs; slow work that is not the database's (an embedding
// provider) is bounded by its own timeout and by the server's
// idle_in_transaction_session_timeout (pg.DeadPeer).
//
// Expired keys are deleted when met and by RunSweeper. A row in state
// in_progress, written by an earlier version that claimed keys in a commit
// of their own, holds its key until it expires.
//
// # Wiring into a service
//
// The table comes with the package as its own migration set, recorded in
// goose_idempotency beside the service's goose_db_version. A service built
// on package service gets the configuration, the keys (Base.Keys), the
// sweeper and the migration from it, given idempotency.MigrationSet among
// its sets, and only wraps its routes. Without it, four places:
//
//	// config: the IDEMPOTENCY_* variables
//	type config struct {
//		...
//		Idempotency idempotency.Config
//	}
//	// and validate it: errors.Join(..., cfg.Idempotency.Validate())
//
//	// migrate subcommand: apply both sets
//	pg.MigrateSets(ctx, sqlDB, logger, pg.Set{FS: migrations.FS}, idempotency.MigrationSet)
//
//	// serve: make the keys, sweep in the background, wrap every POST/PATCH
//	keys, err := idempotency.New(db, cfg.Idempotency, logger)
//	if err != nil {
//		return err
//	}
//	go keys.RunSweeper(ctx)
//	admin.POST("/services", write, keys.Wrap(h.create))
//
//	// tests: build the test database from both sets
//	db := pgtest.NewDB(t, migrations.FS, idempotency.MigrationSet)
//	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
//
// The body is read once, bounded by the limit of server.Handler, and put
// back for the handler.
package idempotency
