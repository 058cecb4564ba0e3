// Package validate holds the offline checks of the deployment files: the
// Dockerfile, docker-compose.yml, the Kubernetes overlays and the realm file
// shared by Keycloak and devidp. No Docker engine or cluster is needed; the
// checks are its tests, run by `go test ./deploy/...`.
package validate
