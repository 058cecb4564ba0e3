package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// resourceCommand builds "<resource> create|list|get|update|delete".
func (a *app) resourceCommand(r resource) *cobra.Command {
	cmd := &cobra.Command{Use: r.name, Short: "Create, list, read, update and delete " + r.name}
	cmd.AddCommand(a.createCommand(r), a.listCommand(r), a.getCommand(r), a.updateCommand(r), a.deleteCommand(r))
	return cmd
}

func addBodyFlags(cmd *cobra.Command, b *bodyFlags) {
	cmd.Flags().StringVarP(&b.file, "file", "f", "", "JSON file with the body; - reads standard input")
	cmd.Flags().StringArrayVar(&b.sets, "set", nil, "set a member: name=value, value read as JSON when it parses (repeatable)")
}

func (a *app) createCommand(r resource) *cobra.Command {
	var b bodyFlags
	cmd := &cobra.Command{
		Use:   "create -f FILE.json | --set member=value...",
		Short: "Create one of " + r.name,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.send(cmd, r, http.MethodPost, r.path, &b)
		},
	}
	addBodyFlags(cmd, &b)
	return cmd
}

func (a *app) updateCommand(r resource) *cobra.Command {
	var b bodyFlags
	cmd := &cobra.Command{
		Use:   "update ID -f FILE.json | --set member=value...",
		Short: "Replace one of " + r.name + " with the whole body given",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := r.itemPath(args[0])
			if err != nil {
				return err
			}
			return a.send(cmd, r, http.MethodPut, p, &b)
		},
	}
	addBodyFlags(cmd, &b)
	return cmd
}

// send makes a request with a body and prints the resource answered.
func (a *app) send(cmd *cobra.Command, r resource, method, path string, b *bodyFlags) error {
	body, err := b.build(a.env.Stdin)
	if err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	var out json.RawMessage
	if _, err := c.Do(cmd.Context(), method, r.area, path, body, &out); err != nil {
		return err
	}
	return shown(method, path, a.printer().object(out))
}

func (a *app) getCommand(r resource) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Show one of " + r.name,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := r.itemPath(args[0])
			if err != nil {
				return err
			}
			return a.fetch(cmd, r.area, p, nil, a.printer().object)
		},
	}
}

func (a *app) deleteCommand(r resource) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: "Delete one of " + r.name,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := r.itemPath(args[0])
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			if _, err := c.Do(cmd.Context(), http.MethodDelete, r.area, p, nil, nil); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stderr, "deleted %s %s\n", r.name, clean(args[0], 0))
			return nil
		},
	}
}

func (a *app) listCommand(r resource) *cobra.Command {
	var page, perPage int
	var filters []string
	cmd := &cobra.Command{
		Use:   "list [--filter name=value]...",
		Short: "List " + r.name + ", one page at a time",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := listQuery(page, perPage, filters)
			if err != nil {
				return err
			}
			return a.fetch(cmd, r.area, r.path, q, func(body json.RawMessage) error {
				return a.printer().page(body, r.columns)
			})
		},
	}
	cmd.Flags().IntVar(&page, "page", 0, "page number, from 1")
	cmd.Flags().IntVar(&perPage, "per-page", 0, "items per page (the API caps it at 100)")
	cmd.Flags().StringArrayVar(&filters, "filter", nil, "filter: name=value, e.g. status=ABERTO (repeatable)")
	return cmd
}

// listQuery builds the query of a list.
func listQuery(page, perPage int, filters []string) (url.Values, error) {
	q := url.Values{}
	for _, f := range filters {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, usagef("--filter %q: write name=value", f)
		}
		q.Add(k, v)
	}
	if page < 0 || perPage < 0 {
		return nil, usagef("--page and --per-page must be positive")
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	return q, nil
}
