package postgres

import (
	"context"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// ExplainKeywordSearch runs the keyword search for q, matching every term
// or any term, under EXPLAIN (ANALYZE, FORMAT JSON) exactly as
// KeywordSearch runs it and returns the plan.
func (s *Store) ExplainKeywordSearch(ctx context.Context, q catalog.KeywordQuery, every bool) (string, error) {
	args, err := keywordArgs(q, every)
	if err != nil {
		return "", err
	}
	var plan []string
	err = s.runKeywordSearch(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) ", args, &plan)
	if err != nil || len(plan) == 0 {
		return "", err
	}
	return plan[0], nil
}
