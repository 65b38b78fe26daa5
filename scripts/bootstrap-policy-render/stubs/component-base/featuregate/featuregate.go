package featuregate

type Feature string
