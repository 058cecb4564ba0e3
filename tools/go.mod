module github.com/municipal-apis/platform/tools

go 1.26.8

require github.com/municipal-apis/platform/pkg v0.0.0

replace github.com/municipal-apis/platform/pkg => ../pkg
