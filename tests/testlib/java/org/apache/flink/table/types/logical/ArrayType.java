package org.apache.flink.table.types.logical;
public final class ArrayType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final LogicalType elementType;
  public ArrayType(boolean nullable, LogicalType e) { super(nullable, LogicalTypeRoot.ARRAY); elementType = e; }
}
