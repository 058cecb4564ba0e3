// Package docs holds the tests that keep the repository's documentation true:
// references to docs/decisions.md name sections that exist, and nothing points
// at notes kept outside the repository.
package docs
