package stack

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/oauth2/clientcredentials"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp"
)

// The clients of the development realm the stack's devidp serves (docs/decisions.md#realm-clients-and-scopes).
const (
	CatalogAdmin = "catalog-admin"
	JobsAdmin    = "jobs-admin"
	Reader       = "reader"
	OtherDept    = "other-dept"
)

// TokenURL is the client-credentials endpoint of the stack's realm.
func (s *Stack) TokenURL() string { return client.TokenURL(s.AuthURL, "municipal") }

// Secret returns the client secret of clientID in the development realm.
func Secret(clientID string) (string, error) {
	realm, err := devidp.DefaultRealm()
	if err != nil {
		return "", fmt.Errorf("load the development realm: %w", err)
	}
	c, ok := realm.Client(clientID)
	if !ok {
		return "", fmt.Errorf("the development realm has no client %q", clientID)
	}
	return c.Secret, nil
}

// ClientConfig returns a pkg/client configuration that reaches both areas
// through the gateway as the realm client clientID.
func (s *Stack) ClientConfig(clientID string) (client.Config, error) {
	secret, err := Secret(clientID)
	if err != nil {
		return client.Config{}, err
	}
	return client.Config{
		SearchBaseURL: s.SearchBaseURL(),
		JobsBaseURL:   s.JobsBaseURL(),
		TokenURL:      s.TokenURL(),
		ClientID:      clientID,
		ClientSecret:  secret,
		HTTPClient:    &http.Client{Timeout: 30 * time.Second},
	}, nil
}

// Token fetches an access token of the realm client clientID from the
// stack's identity provider with the client-credentials flow.
func (s *Stack) Token(ctx context.Context, clientID string) (string, error) {
	secret, err := Secret(clientID)
	if err != nil {
		return "", err
	}
	cc := clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: s.TokenURL()}
	tok, err := cc.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("token of %s: %w", clientID, err)
	}
	return tok.AccessToken, nil
}
