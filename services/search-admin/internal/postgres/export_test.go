package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// TSQuery exposes tsquery to tests.
var TSQuery = tsquery

// ExplainKeywordSearch runs the keyword search for q under EXPLAIN
// (ANALYZE, FORMAT JSON) exactly as KeywordSearch runs it and returns the plan.
func (s *Store) ExplainKeywordSearch(ctx context.Context, q catalog.KeywordQuery) (string, error) {
	args, err := keywordArgs(q)
	if err != nil || args == nil {
		return "", err
	}
	return explain(func(dest *[]string) error {
		return s.runKeywordSearch(ctx, explainPrefix, args, collectPlans(dest))
	})
}

// ExplainRankKeywordCandidates runs the ranking of candidates ids for q
// like ExplainKeywordSearch.
func (s *Store) ExplainRankKeywordCandidates(ctx context.Context, q catalog.KeywordQuery, ids []string) (string, error) {
	args, err := rankCandidateArgs(q, ids)
	if err != nil || args == nil {
		return "", err
	}
	return explain(func(dest *[]string) error {
		return s.runRankCandidates(ctx, explainPrefix, args, collectPlans(dest))
	})
}

// ExplainCorrections runs the typo-correction lookup for q like
// ExplainKeywordSearch.
func (s *Store) ExplainCorrections(ctx context.Context, q catalog.CorrectionQuery) (string, error) {
	args, err := correctionArgs(q)
	if err != nil || args == nil {
		return "", err
	}
	return explain(func(dest *[]string) error {
		return s.runCorrections(ctx, explainPrefix, args, dest)
	})
}

const explainPrefix = "EXPLAIN (ANALYZE, FORMAT JSON) "

func explain(run func(dest *[]string) error) (string, error) {
	var plan []string
	if err := run(&plan); err != nil || len(plan) == 0 {
		return "", err
	}
	return plan[0], nil
}

// collectPlans scans the rows of an EXPLAIN into dest.
func collectPlans(dest *[]string) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		plans, err := pgx.CollectRows(rows, pgx.RowTo[string])
		*dest = plans
		return err
	}
}
