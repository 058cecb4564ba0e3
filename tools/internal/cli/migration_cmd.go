package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/municipal-apis/platform/pkg/client"
)

// schemasCommand shows the search-schema versions (operation 1).
func (a *app) schemasCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "schemas",
		Short: "Show the search-schema versions available for migration and the current one",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.fetch(cmd, client.AreaSearch, client.MigrationSchemasPath, nil, a.showSchemas)
		},
	}
}

func (a *app) showSchemas(body json.RawMessage) error {
	p := a.printer()
	if p.json {
		return p.raw(body)
	}
	var rep client.SchemaReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("the answer is not a schema report: %w", err)
	}
	rows := make([][]string, len(rep.Schemas))
	for i, s := range rep.Schemas {
		current := ""
		if s.Version == rep.CurrentVersion {
			current = "*"
		}
		fields := make([]string, len(s.Fields))
		for j, f := range s.Fields {
			fields[j] = f.Name
		}
		rows[i] = []string{clean(s.Version, maxCellRunes), current, clean(s.EmbeddingModel, maxCellRunes), strconv.Itoa(s.Dimensions),
			clean(strings.Join(fields, ","), maxCellRunes), clean(s.Description, maxCellRunes)}
	}
	if _, err := fmt.Fprintf(p.w, "current version: %s\n", clean(rep.CurrentVersion, maxCellRunes)); err != nil {
		return err
	}
	return table(p.w, []string{"version", "current", "embedding_model", "dimensions", "fields", "description"}, rows)
}

// migrationCommand groups the commands about search index migrations.
func (a *app) migrationCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "migration", Short: "Search index migrations"}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the state of the search index migration",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.fetch(cmd, client.AreaSearch, client.MigrationStatusPath, nil, a.printer().object)
		},
	})
	return cmd
}
