package serviceaccount

const AllServiceAccountsGroup = "system:serviceaccounts"
