package org.apache.flink.table.types.logical;
public final class SmallIntType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public SmallIntType(boolean nullable) { super(nullable, LogicalTypeRoot.SMALLINT); }
}
