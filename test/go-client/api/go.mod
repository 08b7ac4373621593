module github.com/hashicorp/nomad/api

go 1.25

require (
	github.com/docker/go-units v0.5.0
	github.com/felixge/httpsnoop v1.1.0
	github.com/go-viper/mapstructure/v2 v2.5.0
	github.com/gorilla/websocket v1.5.3
	github.com/hashicorp/cronexpr v1.1.3
	github.com/hashicorp/go-cleanhttp v0.5.2
	github.com/hashicorp/go-rootcerts v1.0.2
	github.com/shoenig/test v1.13.2
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/mitchellh/go-homedir v1.1.0 // indirect
	github.com/stretchr/testify v1.8.1 // indirect
)
