package benchreport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/tools/internal/load"
)

// LoadRun is a loadgen run of the default mix against a stack started for it.
type LoadRun struct {
	Rate     int
	Duration time.Duration
}

// Command is the loadgen command that sends the same load to `make run`;
// benchreport itself sends it to a stack of its own.
func (l LoadRun) Command() string {
	return fmt.Sprintf("go run ./tools/cmd/loadgen --rate %d --duration %v   # benchreport: to a stack of its own", l.Rate, l.Duration)
}

// Run starts a stack on loopback (pkg/stack), sends the default
// mix through its gateway, and stops it.
func (l LoadRun) Run(ctx context.Context) (rep *load.Report, err error) {
	s, err := stack.Start(ctx, stack.Options{})
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, s.Close(), stack.RemoveBinaries()) }()
	search, err := credentials(stack.CatalogAdmin)
	if err != nil {
		return nil, err
	}
	jobs, err := credentials(stack.JobsAdmin)
	if err != nil {
		return nil, err
	}
	return load.Run(ctx, load.Config{
		SearchURL: s.SearchBaseURL(), JobsURL: s.JobsBaseURL(), AuthURL: s.AuthURL,
		SearchClient: search, JobsClient: jobs,
		Mix: load.MustParseMix(load.DefaultMix), Rate: l.Rate, Duration: l.Duration,
	})
}

func credentials(clientID string) (load.Credentials, error) {
	secret, err := stack.Secret(clientID)
	return load.Credentials{ID: clientID, Secret: secret}, err
}
