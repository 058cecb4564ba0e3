package catalog

import "slices"

// WriteVersions are the search-schema versions a write must index: the
// current one, the target of a running re-index, and the previous one kept
// fresh so that a rollback needs no re-index.
type WriteVersions struct {
	Current  string
	Target   string
	Previous string
}

// All lists the distinct versions, the current one first.
func (w WriteVersions) All() []string {
	out := []string{w.Current}
	for _, v := range []string{w.Target, w.Previous} {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Indexer builds the search documents of one write for versions, the current
// one first. The store calls it inside the write transaction, after locking
// the versions, so a re-index that starts meanwhile is never missed.
type Indexer func(versions WriteVersions) ([]Document, error)
