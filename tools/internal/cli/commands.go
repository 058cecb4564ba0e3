package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/municipal-apis/platform/pkg/client"
)

// printer returns the output of this run.
func (a *app) printer() printer { return printer{w: a.env.Stdout, json: a.set.json} }

// fetch GETs path with query in area and hands the answer to show.
func (a *app) fetch(cmd *cobra.Command, area, path string, query url.Values, show func(json.RawMessage) error) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	var out json.RawMessage
	if _, err := c.Do(cmd.Context(), http.MethodGet, area, path, nil, &out, client.WithQuery(query)); err != nil {
		return err
	}
	return shown(http.MethodGet, path, show(out))
}

// shown names the request whose answer could not be shown: an empty body
// or one that is not what the command expects.
func shown(method, path string, err error) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// noArgs and exactArgs are cobra's argument checks, reporting usage errors.
func noArgs(cmd *cobra.Command, args []string) error {
	return asUsage(cobra.NoArgs(cmd, args))
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return asUsage(cobra.ExactArgs(n)(cmd, args))
	}
}

func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}
