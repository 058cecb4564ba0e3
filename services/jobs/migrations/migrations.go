// Package migrations embeds the versioned SQL migrations of the jobs database.
package migrations

import "embed"

// FS holds the goose SQL migrations, applied in version order by pg.Migrate.
//
//go:embed *.sql
var FS embed.FS
