// Package migrations holds the versioned SQL migrations of the search-admin
// database, applied by `search-admin migrate`.
package migrations

import "embed"

// FS holds every goose SQL migration at its root.
//
//go:embed *.sql
var FS embed.FS
