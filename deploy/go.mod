module github.com/municipal-apis/platform/deploy

go 1.26.8
