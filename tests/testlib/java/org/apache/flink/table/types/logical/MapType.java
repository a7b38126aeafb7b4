package org.apache.flink.table.types.logical;
public final class MapType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final LogicalType keyType;
  private final LogicalType valueType;
  public MapType(boolean nullable, LogicalType k, LogicalType v) { super(nullable, LogicalTypeRoot.MAP); keyType = k; valueType = v; }
}
