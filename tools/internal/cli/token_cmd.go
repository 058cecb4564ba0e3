package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// tokenCommand prints an access token, for curl and for checking credentials.
func (a *app) tokenCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Get an access token by client credentials and print it",
		Long: "token prints the access token alone, so that TOKEN=$(municipal token) works;\n" +
			"with --json it prints the token with its type, expiry and scope.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			tok, err := c.Token(cmd.Context())
			if err != nil {
				return err
			}
			if !a.set.json {
				_, err := fmt.Fprintln(a.env.Stdout, tok.AccessToken)
				return err
			}
			scope, _ := tok.Extra("scope").(string)
			return json.NewEncoder(a.env.Stdout).Encode(struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
				ExpiresAt   string `json:"expires_at"`
				Scope       string `json:"scope,omitempty"`
			}{tok.AccessToken, tok.Type(), tok.Expiry.UTC().Format(time.RFC3339), scope})
		},
	}
}
