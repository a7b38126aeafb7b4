package org.apache.flink.table.types.logical;
public final class MultisetType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final LogicalType elementType;
  public MultisetType(boolean nullable, LogicalType e) { super(nullable, LogicalTypeRoot.MULTISET); elementType = e; }
}
