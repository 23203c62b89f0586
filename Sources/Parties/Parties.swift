// The Parties module: the party service (`PartyService`, `PartyCSV`) over a store (`PartyStores`)
// and the cluster index (`PartyClusters`). Its types are documented where they are declared.
