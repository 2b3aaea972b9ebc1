package runtime

const mapNoReserve = 0
