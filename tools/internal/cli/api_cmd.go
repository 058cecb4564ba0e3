package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// apiCommand sends any request, for routes without a command of their own.
func (a *app) apiCommand() *cobra.Command {
	var b bodyFlags
	cmd := &cobra.Command{
		Use:   "api METHOD search|jobs PATH [-f FILE.json] [--set member=value]...",
		Short: "Send any request to an area of the API and print the answer",
		Example: "  municipal api GET search /api/v1/admin/services?status=1\n" +
			"  municipal api PATCH jobs /api/v1/empregos/7/status --set status=ABERTO",
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			method, area, path := strings.ToUpper(args[0]), args[1], args[2]
			var body json.RawMessage
			if b.file != "" || len(b.sets) > 0 {
				var err error
				if body, err = b.build(a.env.Stdin); err != nil {
					return err
				}
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			var out json.RawMessage
			resp, err := c.Do(cmd.Context(), method, area, path, body, &out)
			if err != nil {
				return err
			}
			if len(out) == 0 {
				_, err := fmt.Fprintf(a.env.Stderr, "%d, no body\n", resp.StatusCode)
				return err
			}
			return shown(method, path, a.printer().raw(out))
		},
	}
	addBodyFlags(cmd, &b)
	return cmd
}
