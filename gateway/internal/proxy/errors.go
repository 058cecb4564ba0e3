package proxy

import (
	"github.com/municipal-apis/platform/pkg/problem"
)

func tooLarge(limit int64) error { return problem.BodyTooLarge(limit) }

func timedOut(err error) error {
	return problem.Wrap(problem.ETIMEOUT, err, "the upstream service did not answer in time")
}

func unreachable(err error) error {
	return problem.Wrap(problem.EBADGATEWAY, err, "the upstream service is unavailable")
}
