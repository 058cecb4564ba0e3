// Package idempotency makes POST and PATCH requests safe to retry with an
// Idempotency-Key header (IETF draft-ietf-httpapi-idempotency-key-header),
// storing keys per client in the service's own PostgreSQL database.
//
// A request without the header passes through untouched. With one, the key
// is scoped to the caller's client id (auth.ClaimsFrom, so the middleware
// goes after auth.Middleware and the scope check), and the request is
// fingerprinted by method, route, path, query and its exact body bytes:
//
//   - the first request claims the key, runs, and its answer (status, body,
//     Content-Type and Location) is stored for Config.TTL, 24 h by default;
//     a 5xx or a panic is not stored, so a retry runs again;
//   - a repeat with the same fingerprint gets the stored answer, 4xx
//     included, with Idempotent-Replayed: true;
//   - a repeat while the first still runs is a 409 with Retry-After: 1;
//   - the same key with another fingerprint is a 422 whose errors name the
//     Idempotency-Key header with code "reused";
//   - an empty key, one over 255 characters, or one with characters outside
//     printable ASCII is a 400; the draft's quoted form ("abc") and the bare
//     form (abc) are the same key.
//
// Expired keys are deleted when met and by RunSweeper. A claim whose process
// died frees its key after Config.LockTimeout.
//
// # Wiring into a service
//
// The table comes with the package as its own migration set, recorded in
// goose_idempotency beside the service's goose_db_version. Four places:
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
//	// serve: make the keys, sweep in the background, guard every POST/PATCH
//	keys, err := idempotency.New(db, cfg.Idempotency, logger)
//	if err != nil {
//		return err
//	}
//	go keys.RunSweeper(ctx)
//	idem := keys.Middleware()
//	admin.POST("/services", write, idem, h.create)
//
//	// tests: build the test database from both sets
//	db := pgtest.NewDB(t, migrations.FS, idempotency.MigrationSet)
//	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
//
// The body is read once, bounded by the limit of server.Handler, and put
// back for the handler.
package idempotency
