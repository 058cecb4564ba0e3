package idempotency

import (
	"embed"
	"io/fs"

	"github.com/municipal-apis/platform/pkg/pg"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations holds the goose SQL migrations of the idempotency_keys table.
var Migrations = mustSub(migrationFiles, "migrations")

// MigrationSet is Migrations as a named set for pg.MigrateSets and pgtest,
// recorded in its own version table goose_idempotency.
var MigrationSet = pg.Set{Name: "idempotency", FS: Migrations}

// mustSub returns the embedded folder dir; it can only fail on a typo in dir.
func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
