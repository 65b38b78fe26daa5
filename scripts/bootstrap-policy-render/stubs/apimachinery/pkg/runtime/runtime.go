package runtime

type Object interface{}
