package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/municipal-apis/platform/pkg/client"
)

// ExampleNew calls both areas through the gateway of `make run`, with a
// token fetched by client credentials. It is compiled, not run: it needs
// the running stack.
func ExampleNew() {
	ctx := context.Background()
	c, err := client.New(client.Config{
		SearchBaseURL: "http://127.0.0.1:8080/search",
		JobsBaseURL:   "http://127.0.0.1:8080/go/v1",
		TokenURL:      client.TokenURL("http://127.0.0.1:8090", "municipal"),
		ClientID:      "jobs-admin",
		ClientSecret:  os.Getenv("MUNICIPAL_CLIENT_SECRET"), // from the environment, never from code
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	esc, err := c.CreateEscolaridade(ctx, &client.Escolaridade{Nivel: "Ensino médio"})
	var apiErr *client.Error
	switch {
	case client.IsInvalid(err) && errors.As(err, &apiErr): // 422: every violated rule
		for _, f := range apiErr.Errors {
			fmt.Println(f.Field, f.Code)
		}
	case client.IsConflict(err): // 409: nivel already exists
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println("created", esc.ID)
	}
	page, err := c.ListEmpregos(ctx, client.ListOptions{PerPage: 50, Filter: url.Values{"status": {"ABERTO"}}})
	if err == nil {
		fmt.Println(page.Meta.Total, "open postings")
	}
}
